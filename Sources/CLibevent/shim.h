#ifndef CLIBEVENT_SHIM_H
#define CLIBEVENT_SHIM_H

/* System headers first: libevent's event-config.h defines _GNU_SOURCE, and system headers first
   read under it would not match the ones the Swift Glibc module was built from. */
#include <sys/types.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>
#include <errno.h>
#include <stdlib.h>

#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/listener.h>
#include <event2/thread.h>
#include <event2/util.h>

#endif

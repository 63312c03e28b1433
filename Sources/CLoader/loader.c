/* See CLoader.h. */
#include "CLoader.h"

#include <dlfcn.h>
#include <stdio.h>

int cloader_open(cloader_library *library) {
    library->handle = dlopen(library->name, RTLD_NOW | RTLD_LOCAL);
    if (library->handle == NULL) {
        const char *reason = dlerror();
        snprintf(library->failure, sizeof library->failure, "cannot load %s: %s", library->name, reason ? reason : "unknown reason");
        return 0;
    }
    return 1;
}

int cloader_ready(cloader_library *library, void (*load)(void)) {
    pthread_once(&library->once, load);
    return library->handle != NULL && library->failure[0] == 0;
}

void *cloader_function(cloader_library *library, const char *name) {
    void *symbol = dlsym(library->handle, name);
    if (symbol == NULL && library->failure[0] == 0) {
        snprintf(library->failure, sizeof library->failure, "%s has no %s%s", library->name, name, library->note);
    }
    return symbol;
}

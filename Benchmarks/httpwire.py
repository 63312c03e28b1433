"""The benchmark scripts' shared HTTP/1.1 response reader (Content-Length framed)."""


def take_response(buffer):
    """Splits one whole response off the front of `buffer`.

    Returns (status line, body, rest of buffer), or None when the buffer holds no whole response yet.
    """
    end = buffer.find(b"\r\n\r\n")
    if end < 0:
        return None
    head = buffer[:end].decode("latin-1")
    length = 0
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "content-length":
            length = int(value)
    if len(buffer) < end + 4 + length:
        return None
    return head.split("\r\n")[0], buffer[end + 4:end + 4 + length], buffer[end + 4 + length:]

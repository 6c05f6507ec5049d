/* SHA-256 fingerprints that a reader can recompute with sha256sum (tools/sha256.c). */
#ifndef FUPERMOD_TOOLS_SHA256_H
#define FUPERMOD_TOOLS_SHA256_H

#include <stddef.h>

/* SHA-256 of n bytes as 64 lowercase hex digits and a NUL. */
void fupermod_sha256_hex(const void *data, size_t n, char out[65]);
/* SHA-256 of a file's bytes; FUPERMOD_ERR_* with a message naming the file. */
int fupermod_sha256_file(const char *path, char out[65]);

#endif

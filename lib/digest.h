/*
 * digest.h: the message digests the core uses, fetched from OpenSSL's
 * provider once per process.  EVP_sha256() makes every digest fetch
 * its implementation again (a name lookup under a lock, about 5,000
 * instructions), which each request's token check paid.
 */
#ifndef SW_DIGEST_H
#define SW_DIGEST_H

#include <openssl/evp.h>

/* SHA-256; kept for the life of the process. */
const EVP_MD *sw_sha256(void);

#endif

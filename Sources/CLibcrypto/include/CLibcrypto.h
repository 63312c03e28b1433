/* OpenSSL's libcrypto, for the signatures of JSON Web Tokens: public keys made from a JWK's
   parameters and one-shot signature checks. Only glue lives here, no cryptography: every computation
   is libcrypto's. Imported by one Swift file only (Sources/TodoServer/Identity/SignatureKey.swift).

   libcrypto.so.3 is opened on first use (Sources/CLibcrypto/crypto.c, through CLoader), as libpq
   and libcurl are: a server that checks no JWT never maps it (1.4 MB of an idle server's 20 MiB
   resident before). Until it is loaded, or when it cannot be, every function answers as OpenSSL
   answers a refusal (NULL, 0, -1) and `clibcrypto_load_error` says why.

   Each function clears the calling thread's OpenSSL error queue before it returns, so that a
   refused key or signature leaves nothing behind on a loop thread. */
#ifndef CLIBCRYPTO_H
#define CLIBCRYPTO_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/types.h>

/* Why libcrypto cannot be used (it is opened by this call when it was not yet), or NULL. */
const char *clibcrypto_load_error(void);

/* An RSA public key from its modulus and public exponent (big-endian, unsigned), checked with
   EVP_PKEY_public_check (SP 800-56B's public checks), or null. */
EVP_PKEY *todo_crypto_rsa_public_key(const uint8_t *n, size_t n_length, const uint8_t *e, size_t e_length);

/* A P-256 public key from its uncompressed point (0x04 || x || y, 65 bytes), checked (the point is
   on the curve and not the point at infinity), or null. */
EVP_PKEY *todo_crypto_p256_public_key(const uint8_t *point, size_t point_length);

/* An Ed25519 public key from its 32 bytes (RFC 8032's encoding), or null. */
EVP_PKEY *todo_crypto_ed25519_public_key(const uint8_t *x, size_t x_length);

/* Frees a key made by one of the functions above. */
void todo_crypto_key_free(EVP_PKEY *key);

/* The bits of an RSA key's modulus. */
int todo_crypto_key_bits(const EVP_PKEY *key);

/* An ECDSA signature given as JOSE's r || s (two 32-byte big-endian integers, RFC 7518 §3.4) in
   the DER form (ECDSA-Sig-Value) that EVP_DigestVerify reads, written to `out` (72 bytes are
   enough for P-256). Its length, or -1. */
int todo_crypto_ecdsa_p256_der(const uint8_t *raw, uint8_t *out, size_t out_capacity);

/* Checks `signature` over `message` with `key`: SHA-256 with RSASSA-PKCS1-v1_5 for an RSA key and
   with ECDSA (DER signature) for an EC key when `sha256` is set; pure Ed25519 (no digest) for an
   Ed25519 key when it is not. 1: valid; 0: not valid (or OpenSSL could not check it). */
int todo_crypto_verify(EVP_PKEY *key, int sha256, int rsa_pkcs1, const uint8_t *message, size_t message_length,
                       const uint8_t *signature, size_t signature_length);

#endif

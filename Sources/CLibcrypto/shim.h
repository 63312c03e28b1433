// OpenSSL's libcrypto (libssl-dev at build time; libcrypto.so.3, which libpq5 already brings, at run
// time), for the signatures of JSON Web Tokens: public keys made from a JWK's parameters and
// one-shot signature checks. Only glue lives here, no cryptography: every computation is
// libcrypto's. Imported by one Swift file only (Sources/TodoServer/Identity/SignatureKey.swift).
// Each function clears the calling thread's OpenSSL error queue before it returns, so that a
// refused key or signature leaves nothing behind on a loop thread.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

// A public key from OSSL_PARAMs built by `push` (key type `name`: "RSA" or "EC"), checked with
// EVP_PKEY_public_check (RSA: SP 800-56B's public checks; EC: the point is on the curve and not
// the point at infinity). Null when OpenSSL refuses it.
static inline EVP_PKEY *todo_crypto_key_from_params(const char *name, OSSL_PARAM_BLD *builder) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(builder);
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, name, NULL);
    if (params != NULL && context != NULL && EVP_PKEY_fromdata_init(context) == 1
        && EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) == 1) {
        EVP_PKEY_CTX *check = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
        if (check == NULL || EVP_PKEY_public_check(check) != 1) {
            EVP_PKEY_free(key);
            key = NULL;
        }
        EVP_PKEY_CTX_free(check);
    } else {
        EVP_PKEY_free(key);
        key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    ERR_clear_error();
    return key;
}

// An RSA public key from its modulus and public exponent (big-endian, unsigned), or null.
static inline EVP_PKEY *todo_crypto_rsa_public_key(const uint8_t *n, size_t n_length, const uint8_t *e, size_t e_length) {
    EVP_PKEY *key = NULL;
    BIGNUM *modulus = BN_bin2bn(n, (int)n_length, NULL);
    BIGNUM *exponent = BN_bin2bn(e, (int)e_length, NULL);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    if (modulus != NULL && exponent != NULL && builder != NULL
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) == 1
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent) == 1) {
        key = todo_crypto_key_from_params("RSA", builder);
    }
    OSSL_PARAM_BLD_free(builder);
    BN_free(modulus);
    BN_free(exponent);
    ERR_clear_error();
    return key;
}

// A P-256 public key from its uncompressed point (0x04 || x || y, 65 bytes), or null.
static inline EVP_PKEY *todo_crypto_p256_public_key(const uint8_t *point, size_t point_length) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    if (builder != NULL
        && OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) == 1
        && OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, point_length) == 1) {
        key = todo_crypto_key_from_params("EC", builder);
    }
    OSSL_PARAM_BLD_free(builder);
    ERR_clear_error();
    return key;
}

// An Ed25519 public key from its 32 bytes (RFC 8032's encoding), or null.
static inline EVP_PKEY *todo_crypto_ed25519_public_key(const uint8_t *x, size_t x_length) {
    EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, x, x_length);
    ERR_clear_error();
    return key;
}

// The bits of an RSA key's modulus.
static inline int todo_crypto_key_bits(const EVP_PKEY *key) {
    return EVP_PKEY_get_bits(key);
}

// An ECDSA signature given as JOSE's r || s (two 32-byte big-endian integers, RFC 7518 §3.4) in
// the DER form (ECDSA-Sig-Value) that EVP_DigestVerify reads, written to `out` (72 bytes are
// enough for P-256). Its length, or -1.
static inline int todo_crypto_ecdsa_p256_der(const uint8_t *raw, uint8_t *out, size_t out_capacity) {
    int length = -1;
    ECDSA_SIG *signature = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(raw, 32, NULL);
    BIGNUM *s = BN_bin2bn(raw + 32, 32, NULL);
    if (signature != NULL && r != NULL && s != NULL && ECDSA_SIG_set0(signature, r, s) == 1) {
        r = NULL;  // owned by the signature now
        s = NULL;
        int needed = i2d_ECDSA_SIG(signature, NULL);
        if (needed > 0 && (size_t)needed <= out_capacity) {
            uint8_t *cursor = out;
            length = i2d_ECDSA_SIG(signature, &cursor);
        }
    }
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(signature);
    ERR_clear_error();
    return length;
}

// Checks `signature` over `message` with `key`: SHA-256 with RSASSA-PKCS1-v1_5 for an RSA key and
// with ECDSA (DER signature) for an EC key when `sha256` is set; pure Ed25519 (no digest) for an
// Ed25519 key when it is not. 1: valid; 0: not valid (or OpenSSL could not check it).
static inline int todo_crypto_verify(EVP_PKEY *key, int sha256, int rsa_pkcs1, const uint8_t *message, size_t message_length,
                                     const uint8_t *signature, size_t signature_length) {
    int valid = 0;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    EVP_PKEY_CTX *key_context = NULL;
    if (context != NULL && EVP_DigestVerifyInit(context, &key_context, sha256 ? EVP_sha256() : NULL, NULL, key) == 1
        && (!rsa_pkcs1 || EVP_PKEY_CTX_set_rsa_padding(key_context, RSA_PKCS1_PADDING) == 1)) {
        valid = EVP_DigestVerify(context, signature, signature_length, message, message_length) == 1;
    }
    EVP_MD_CTX_free(context);  // frees key_context too
    ERR_clear_error();
    return valid;
}

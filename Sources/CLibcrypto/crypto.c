/* See CLibcrypto.h. The OpenSSL functions below are called through `crypto`, a table filled from
   libcrypto.so.3 with dlsym once (CLoader), never by their own names: the executable exports its
   symbols, so a function of that name defined here would take the place of OpenSSL's own for
   libpq and libssl too. */
#include "CLibcrypto.h"

#include <pthread.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include "CLoader.h"

#define CLIBCRYPTO_LIBRARY "libcrypto.so.3"

/* Every OpenSSL function the glue calls. */
#define CLIBCRYPTO_FUNCTIONS(X) \
    X(BN_bin2bn) X(BN_free) \
    X(OSSL_PARAM_BLD_new) X(OSSL_PARAM_BLD_push_BN) X(OSSL_PARAM_BLD_push_utf8_string) \
    X(OSSL_PARAM_BLD_push_octet_string) X(OSSL_PARAM_BLD_to_param) X(OSSL_PARAM_BLD_free) X(OSSL_PARAM_free) \
    X(EVP_PKEY_CTX_new_from_name) X(EVP_PKEY_CTX_new_from_pkey) X(EVP_PKEY_CTX_free) \
    X(EVP_PKEY_CTX_set_rsa_padding) X(EVP_PKEY_fromdata_init) X(EVP_PKEY_fromdata) X(EVP_PKEY_public_check) \
    X(EVP_PKEY_new_raw_public_key) X(EVP_PKEY_get_bits) X(EVP_PKEY_free) \
    X(ECDSA_SIG_new) X(ECDSA_SIG_set0) X(ECDSA_SIG_free) X(i2d_ECDSA_SIG) \
    X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) X(EVP_DigestVerifyInit) X(EVP_DigestVerify) X(EVP_sha256) \
    X(ERR_clear_error)

#define CLIBCRYPTO_POINTER(name) __typeof__(&name) name;
static struct {
    CLIBCRYPTO_FUNCTIONS(CLIBCRYPTO_POINTER)
} crypto;

static cloader_library libcrypto = {CLIBCRYPTO_LIBRARY, " (OpenSSL 3 is needed)", PTHREAD_ONCE_INIT};

static void load(void) {
    if (!cloader_open(&libcrypto)) return;
#define CLIBCRYPTO_RESOLVE(name) crypto.name = (__typeof__(&name))cloader_function(&libcrypto, #name);
    CLIBCRYPTO_FUNCTIONS(CLIBCRYPTO_RESOLVE)
}

static int ready(void) { return cloader_ready(&libcrypto, load); }

const char *clibcrypto_load_error(void) {
    return ready() ? NULL : libcrypto.failure;
}

/* A public key from OSSL_PARAMs built by `push` (key type `name`: "RSA" or "EC"), checked with
   EVP_PKEY_public_check. Null when OpenSSL refuses it. Called once libcrypto is ready. */
static EVP_PKEY *key_from_params(const char *name, OSSL_PARAM_BLD *builder) {
    EVP_PKEY *key = NULL;
    OSSL_PARAM *params = crypto.OSSL_PARAM_BLD_to_param(builder);
    EVP_PKEY_CTX *context = crypto.EVP_PKEY_CTX_new_from_name(NULL, name, NULL);
    if (params != NULL && context != NULL && crypto.EVP_PKEY_fromdata_init(context) == 1
        && crypto.EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) == 1) {
        EVP_PKEY_CTX *check = crypto.EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
        if (check == NULL || crypto.EVP_PKEY_public_check(check) != 1) {
            crypto.EVP_PKEY_free(key);
            key = NULL;
        }
        crypto.EVP_PKEY_CTX_free(check);
    } else {
        crypto.EVP_PKEY_free(key);
        key = NULL;
    }
    crypto.EVP_PKEY_CTX_free(context);
    crypto.OSSL_PARAM_free(params);
    crypto.ERR_clear_error();
    return key;
}

EVP_PKEY *todo_crypto_rsa_public_key(const uint8_t *n, size_t n_length, const uint8_t *e, size_t e_length) {
    if (!ready()) return NULL;
    EVP_PKEY *key = NULL;
    BIGNUM *modulus = crypto.BN_bin2bn(n, (int)n_length, NULL);
    BIGNUM *exponent = crypto.BN_bin2bn(e, (int)e_length, NULL);
    OSSL_PARAM_BLD *builder = crypto.OSSL_PARAM_BLD_new();
    if (modulus != NULL && exponent != NULL && builder != NULL
        && crypto.OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) == 1
        && crypto.OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent) == 1) {
        key = key_from_params("RSA", builder);
    }
    crypto.OSSL_PARAM_BLD_free(builder);
    crypto.BN_free(modulus);
    crypto.BN_free(exponent);
    crypto.ERR_clear_error();
    return key;
}

EVP_PKEY *todo_crypto_p256_public_key(const uint8_t *point, size_t point_length) {
    if (!ready()) return NULL;
    EVP_PKEY *key = NULL;
    OSSL_PARAM_BLD *builder = crypto.OSSL_PARAM_BLD_new();
    if (builder != NULL
        && crypto.OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) == 1
        && crypto.OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, point_length) == 1) {
        key = key_from_params("EC", builder);
    }
    crypto.OSSL_PARAM_BLD_free(builder);
    crypto.ERR_clear_error();
    return key;
}

EVP_PKEY *todo_crypto_ed25519_public_key(const uint8_t *x, size_t x_length) {
    if (!ready()) return NULL;
    EVP_PKEY *key = crypto.EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, x, x_length);
    crypto.ERR_clear_error();
    return key;
}

void todo_crypto_key_free(EVP_PKEY *key) {
    if (ready()) crypto.EVP_PKEY_free(key);
}

int todo_crypto_key_bits(const EVP_PKEY *key) {
    return ready() ? crypto.EVP_PKEY_get_bits(key) : 0;
}

int todo_crypto_ecdsa_p256_der(const uint8_t *raw, uint8_t *out, size_t out_capacity) {
    if (!ready()) return -1;
    int length = -1;
    ECDSA_SIG *signature = crypto.ECDSA_SIG_new();
    BIGNUM *r = crypto.BN_bin2bn(raw, 32, NULL);
    BIGNUM *s = crypto.BN_bin2bn(raw + 32, 32, NULL);
    if (signature != NULL && r != NULL && s != NULL && crypto.ECDSA_SIG_set0(signature, r, s) == 1) {
        r = NULL; /* owned by the signature now */
        s = NULL;
        int needed = crypto.i2d_ECDSA_SIG(signature, NULL);
        if (needed > 0 && (size_t)needed <= out_capacity) {
            uint8_t *cursor = out;
            length = crypto.i2d_ECDSA_SIG(signature, &cursor);
        }
    }
    crypto.BN_free(r);
    crypto.BN_free(s);
    crypto.ECDSA_SIG_free(signature);
    crypto.ERR_clear_error();
    return length;
}

int todo_crypto_verify(EVP_PKEY *key, int sha256, int rsa_pkcs1, const uint8_t *message, size_t message_length,
                       const uint8_t *signature, size_t signature_length) {
    if (!ready()) return 0;
    int valid = 0;
    EVP_MD_CTX *context = crypto.EVP_MD_CTX_new();
    EVP_PKEY_CTX *key_context = NULL;
    if (context != NULL
        && crypto.EVP_DigestVerifyInit(context, &key_context, sha256 ? crypto.EVP_sha256() : NULL, NULL, key) == 1
        && (!rsa_pkcs1 || crypto.EVP_PKEY_CTX_set_rsa_padding(key_context, RSA_PKCS1_PADDING) == 1)) {
        valid = crypto.EVP_DigestVerify(context, signature, signature_length, message, message_length) == 1;
    }
    crypto.EVP_MD_CTX_free(context); /* frees key_context too */
    crypto.ERR_clear_error();
    return valid;
}

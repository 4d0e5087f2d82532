/* tlslib: OpenSSL (libssl.so.3, libcrypto.so.3), loaded with dlopen when TLS
 * is first configured. A server without TLS maps neither (see tlslib.c for
 * the measurement); server/tls.c calls OpenSSL only through these pointers. */
#ifndef SERVER_TLSLIB_H
#define SERVER_TLSLIB_H

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#define TLSLIB_FUNCS(X)                                                                                                \
    X(ssl, TLS_server_method)                                                                                          \
    X(ssl, TLS_client_method)                                                                                          \
    X(ssl, SSL_CTX_new)                                                                                                \
    X(ssl, SSL_CTX_free)                                                                                               \
    X(ssl, SSL_CTX_ctrl)                                                                                               \
    X(ssl, SSL_CTX_set_options)                                                                                        \
    X(ssl, SSL_CTX_use_certificate_chain_file)                                                                         \
    X(ssl, SSL_CTX_use_PrivateKey_file)                                                                                \
    X(ssl, SSL_CTX_check_private_key)                                                                                  \
    X(ssl, SSL_CTX_set_default_passwd_cb)                                                                              \
    X(ssl, SSL_CTX_set_default_passwd_cb_userdata)                                                                     \
    X(ssl, SSL_CTX_load_verify_locations)                                                                              \
    X(ssl, SSL_CTX_set_cipher_list)                                                                                    \
    X(ssl, SSL_CTX_set_ciphersuites)                                                                                   \
    X(ssl, SSL_CTX_set_timeout)                                                                                        \
    X(ssl, SSL_CTX_set_session_id_context)                                                                             \
    X(ssl, SSL_CTX_set0_tmp_dh_pkey)                                                                                   \
    X(ssl, SSL_CTX_set_verify)                                                                                         \
    X(ssl, SSL_new)                                                                                                    \
    X(ssl, SSL_free)                                                                                                   \
    X(ssl, SSL_set_fd)                                                                                                 \
    X(ssl, SSL_set_verify)                                                                                             \
    X(ssl, SSL_set_accept_state)                                                                                       \
    X(ssl, SSL_set_connect_state)                                                                                      \
    X(ssl, SSL_do_handshake)                                                                                           \
    X(ssl, SSL_read)                                                                                                   \
    X(ssl, SSL_write)                                                                                                  \
    X(ssl, SSL_pending)                                                                                                \
    X(ssl, SSL_get_error)                                                                                              \
    X(ssl, SSL_shutdown)                                                                                               \
    X(crypto, ERR_get_error)                                                                                           \
    X(crypto, ERR_peek_error)                                                                                          \
    X(crypto, ERR_clear_error)                                                                                         \
    X(crypto, ERR_error_string_n)                                                                                      \
    X(crypto, BIO_new_file)                                                                                            \
    X(crypto, BIO_free)                                                                                                \
    X(crypto, PEM_read_bio_Parameters)                                                                                 \
    X(crypto, EVP_PKEY_free)

typedef struct tlsLib {
#define TLSLIB_FIELD(lib, fn) __typeof__(fn) *fn;
    TLSLIB_FUNCS(TLSLIB_FIELD)
#undef TLSLIB_FIELD
} tlsLib;

/* Filled by tlsLibLoad(); all NULL before. */
extern tlsLib tlslib;

/* Loads OpenSSL once (later calls return at once): 1, or 0 with *err saying
 * why (a library is missing, or lacks a function). */
int tlsLibLoad(const char **err);

#endif

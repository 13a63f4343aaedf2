/*
 * crypto.h - thin wrappers over OpenSSL libcrypto: random bytes,
 * base64url (RFC 4648 section 5, no padding), HMAC-SHA256, constant-time
 * comparison, and AES-256-GCM sealing of secrets at rest.
 * Nothing here implements a primitive itself.
 */
#ifndef CRYPTO_H
#define CRYPTO_H

#include <stddef.h>
#include <stdint.h>

#define MASTER_KEY_LEN	32	/* AES-256 key, bytes */
#define SEAL_OVERHEAD	28	/* 12-byte nonce + 16-byte GCM tag */
#define HMAC_LEN	32	/* HMAC-SHA256 output, bytes */

/* Fill buf with len bytes from the CSPRNG.  Returns 0, or -1 on failure. */
int	 crypto_random(void *buf, size_t len);

/*
 * Encode len bytes as base64url without padding into a new NUL-terminated
 * string the caller frees.  Returns NULL on allocation failure.
 */
char	*crypto_b64url_encode(const void *buf, size_t len);

/*
 * Decode base64url text (no padding, alphabet A-Z a-z 0-9 - _ only; a
 * length of 1 mod 4 is invalid) of inlen bytes into out, of capacity
 * outcap.  Returns the decoded length, or -1 when the text is not strict
 * base64url or does not fit.
 */
int64_t	 crypto_b64url_decode(const char *in, size_t inlen, void *out,
	    size_t outcap);

/* HMAC-SHA256 of msg under key into mac[HMAC_LEN].  Returns 0 or -1. */
int	 crypto_hmac_sha256(const void *key, size_t keylen, const void *msg,
	    size_t msglen, uint8_t mac[HMAC_LEN]);

/*
 * Compare len bytes in time independent of the contents (CRYPTO_memcmp).
 * Returns 1 when equal, 0 otherwise.
 */
int	 crypto_ct_equal(const void *a, const void *b, size_t len);

/*
 * Seal plaintext with AES-256-GCM under key[MASTER_KEY_LEN], binding the
 * additional data aad (e.g. "queue-secret:42").  Writes nonce || ciphertext
 * || tag (ptlen + SEAL_OVERHEAD bytes) into out of capacity outcap.
 * Returns the sealed length, or -1 on failure or if it does not fit.
 */
int64_t	 crypto_seal(const uint8_t key[MASTER_KEY_LEN], const char *aad,
	    const void *pt, size_t ptlen, void *out, size_t outcap);

/*
 * Open a sealed blob made by crypto_seal() with the same key and aad into out
 * of capacity outcap.  Returns the plaintext length, or -1 when the blob is
 * short, was altered, or the key or aad differ.
 */
int64_t	 crypto_unseal(const uint8_t key[MASTER_KEY_LEN], const char *aad,
	    const void *in, size_t inlen, void *out, size_t outcap);

/*
 * Read a master key file: 64 hexadecimal digits, optional trailing
 * newline.  Refuses a file readable by group or others.  Returns 0 and
 * fills key, or -1 with a message logged.
 */
int	 crypto_master_key_load(const char *path, uint8_t key[MASTER_KEY_LEN]);

/* Overwrite len bytes of secret material in a way the compiler keeps. */
void	 crypto_wipe(void *buf, size_t len);

#define SHA256_LEN	32	/* SHA-256 output, bytes */

/*
 * SHA-256 (FIPS 180-4) of len bytes of msg into md[SHA256_LEN], through
 * OpenSSL's EVP_Digest.  Returns 0, or -1 on failure.
 */
int	 crypto_sha256(const void *msg, size_t len, uint8_t md[SHA256_LEN]);

#endif /* CRYPTO_H */

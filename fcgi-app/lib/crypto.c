/*
 * crypto.c - thin wrappers over OpenSSL libcrypto: CSPRNG, base64url
 * around EVP_EncodeBlock/EVP_DecodeBlock, HMAC-SHA256, constant-time
 * comparison, AES-256-GCM sealing and the master key file.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "aqueue.h"
#include "crypto.h"
#include "log.h"

#define GCM_NONCE_LEN	12
#define GCM_TAG_LEN	16
#define DECODE_CHUNK	256	/* base64 characters per EVP_DecodeBlock call */

/*
 * Whether c belongs to the base64url alphabet (A-Z a-z 0-9 - _).  Written
 * with ranges, not the locale-dependent ctype functions.  Can't fail.
 */
static int
is_b64url_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/*
 * Fill buf with len bytes from RAND_bytes(), in int-sized pieces.
 * Returns 0, or -1 (logged) when the CSPRNG fails.
 */
int
crypto_random(void *buf, size_t len)
{
	unsigned char	*p = buf;
	int		 n;

	while (len > 0) {
		n = len > INT_MAX ? INT_MAX : (int)len;
		if (RAND_bytes(p, n) != 1) {
			log_warnx("RAND_bytes failed");
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * EVP_EncodeBlock writes standard base64 with '=' padding; translate it
 * in place to the URL alphabet and cut the padding.
 */
char *
crypto_b64url_encode(const void *buf, size_t len)
{
	const unsigned char	*in = buf;
	char			*out;
	size_t			 groups, n, done, chunk;
	int			 w;

	if (len > (SIZE_MAX / 4 - 1) * 3)
		return NULL;
	groups = (len + 2) / 3;
	if ((out = try_malloc(groups * 4 + 1)) == NULL)
		return NULL;
	/* EVP_EncodeBlock takes an int length: feed it whole 3-byte groups. */
	for (done = 0, n = 0; done < len; done += chunk) {
		chunk = len - done;
		if (chunk > 3 * 4096)
			chunk = 3 * 4096;
		w = EVP_EncodeBlock((unsigned char *)out + n, in + done,
		    (int)chunk);
		n += (size_t)w;
	}
	out[n] = '\0';
	while (n > 0 && out[n - 1] == '=')
		out[--n] = '\0';
	for (done = 0; done < n; done++) {
		if (out[done] == '+')
			out[done] = '-';
		else if (out[done] == '/')
			out[done] = '_';
	}
	return out;
}

/*
 * Strict decoder: the alphabet and the length are checked here, then the
 * text goes to EVP_DecodeBlock in chunks with the alphabet translated back
 * and '=' padding restored for the last group.  EVP_DecodeBlock counts the
 * padding as zero bytes (it returns 3 per 4 characters), so the padding is
 * subtracted.  Non-canonical text, where the unused low bits of the last
 * character are not zero (e.g. "QR" for "A"), is refused too, so one byte
 * string has exactly one encoding: the last chunk is re-encoded with
 * EVP_EncodeBlock and compared.
 */
int64_t
crypto_b64url_decode(const char *in, size_t inlen, void *out, size_t outcap)
{
	unsigned char	 ibuf[DECODE_CHUNK + 1], obuf[DECODE_CHUNK / 4 * 3];
	unsigned char	 check[DECODE_CHUNK + 1];
	unsigned char	*dst = out;
	size_t		 i, outlen, done, chunk, pad, produced;
	int		 n;

	if (in == NULL && inlen > 0)
		return -1;
	if (inlen % 4 == 1)
		return -1;
	for (i = 0; i < inlen; i++)
		if (!is_b64url_char((unsigned char)in[i]))
			return -1;
	outlen = inlen / 4 * 3 + (inlen % 4 == 0 ? 0 : inlen % 4 - 1);
	if (outlen > outcap || outlen > (uint64_t)INT64_MAX ||
	    (out == NULL && outlen > 0))
		return -1;

	produced = 0;
	for (done = 0; done < inlen; done += chunk) {
		chunk = inlen - done;
		if (chunk > DECODE_CHUNK)
			chunk = DECODE_CHUNK;
		for (i = 0; i < chunk; i++) {
			if (in[done + i] == '-')
				ibuf[i] = '+';
			else if (in[done + i] == '_')
				ibuf[i] = '/';
			else
				ibuf[i] = (unsigned char)in[done + i];
		}
		pad = 0;
		while ((chunk + pad) % 4 != 0)
			ibuf[chunk + pad++] = '=';
		n = EVP_DecodeBlock(obuf, ibuf, (int)(chunk + pad));
		if (n < 0 || (size_t)n != (chunk + pad) / 4 * 3) {
			crypto_wipe(obuf, sizeof(obuf));
			return -1;
		}
		n -= (int)pad;
		if (done + chunk == inlen && pad > 0) {
			/* Canonical form: re-encode and compare. */
			if (EVP_EncodeBlock(check, obuf, n) !=
			    (int)(chunk + pad) ||
			    memcmp(check, ibuf, chunk + pad) != 0) {
				crypto_wipe(obuf, sizeof(obuf));
				return -1;
			}
		}
		memcpy(dst + produced, obuf, (size_t)n);
		produced += (size_t)n;
	}
	crypto_wipe(obuf, sizeof(obuf));
	return (int64_t)produced;
}

/*
 * HMAC-SHA256 of msg under key through OpenSSL's one-shot HMAC(); a NULL
 * key or message of length 0 stands for the empty string.  Returns 0, or
 * -1 (logged) on failure or a key longer than INT_MAX.
 */
int
crypto_hmac_sha256(const void *key, size_t keylen, const void *msg,
    size_t msglen, uint8_t mac[HMAC_LEN])
{
	static const unsigned char	 empty[1];
	unsigned int			 maclen = 0;

	if (keylen > INT_MAX || (msg == NULL && msglen > 0))
		return -1;
	if (key == NULL)
		key = empty;
	if (msg == NULL)
		msg = empty;
	if (HMAC(EVP_sha256(), key, (int)keylen, msg, msglen, mac,
	    &maclen) == NULL || maclen != HMAC_LEN) {
		log_warnx("HMAC-SHA256 failed");
		return -1;
	}
	return 0;
}

/* CRYPTO_memcmp() as a truth value: 1 when equal, else 0.  Can't fail. */
int
crypto_ct_equal(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

/*
 * AES-256-GCM with a fresh random 12-byte nonce and aad (NULL = "") as
 * additional data; out = nonce || ciphertext || 16-byte tag.  Returns
 * ptlen + SEAL_OVERHEAD, or -1 (out wiped) on failure or short outcap.
 */
int64_t
crypto_seal(const uint8_t key[MASTER_KEY_LEN], const char *aad, const void *pt,
    size_t ptlen, void *out, size_t outcap)
{
	EVP_CIPHER_CTX	*ctx;
	unsigned char	*o = out;
	size_t		 aadlen;
	int		 n, total;
	int64_t		 rc = -1;

	if (key == NULL || (pt == NULL && ptlen > 0) || out == NULL ||
	    ptlen > INT_MAX - SEAL_OVERHEAD || outcap < ptlen + SEAL_OVERHEAD)
		return -1;
	if (aad == NULL)
		aad = "";
	if ((aadlen = strlen(aad)) > INT_MAX)
		return -1;
	if (crypto_random(o, GCM_NONCE_LEN) == -1)
		return -1;
	if ((ctx = EVP_CIPHER_CTX_new()) == NULL) {
		log_warnx("EVP_CIPHER_CTX_new failed");
		return -1;
	}
	if (EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, GCM_NONCE_LEN,
	    NULL) != 1 ||
	    EVP_EncryptInit_ex(ctx, NULL, NULL, key, o) != 1)
		goto out;
	if (aadlen > 0 && EVP_EncryptUpdate(ctx, NULL, &n,
	    (const unsigned char *)aad, (int)aadlen) != 1)
		goto out;
	total = 0;
	if (ptlen > 0) {
		if (EVP_EncryptUpdate(ctx, o + GCM_NONCE_LEN, &n, pt,
		    (int)ptlen) != 1)
			goto out;
		total = n;
	}
	if (EVP_EncryptFinal_ex(ctx, o + GCM_NONCE_LEN + total, &n) != 1)
		goto out;
	total += n;
	if ((size_t)total != ptlen)
		goto out;
	if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, GCM_TAG_LEN,
	    o + GCM_NONCE_LEN + ptlen) != 1)
		goto out;
	rc = (int64_t)(ptlen + SEAL_OVERHEAD);
out:
	if (rc == -1) {
		log_warnx("AES-256-GCM seal failed");
		crypto_wipe(out, outcap);
	}
	EVP_CIPHER_CTX_free(ctx);
	return rc;
}

/*
 * Reverse of crypto_seal(): the tag is checked by EVP_DecryptFinal_ex() and on
 * any failure the partial plaintext in out is wiped.  Returns the
 * plaintext length, or -1.
 */
int64_t
crypto_unseal(const uint8_t key[MASTER_KEY_LEN], const char *aad,
    const void *in, size_t inlen, void *out, size_t outcap)
{
	EVP_CIPHER_CTX		*ctx;
	const unsigned char	*i = in;
	unsigned char		 tag[GCM_TAG_LEN];
	size_t			 ctlen, aadlen;
	int			 n, total;
	int64_t			 rc = -1;

	if (key == NULL || in == NULL || inlen < SEAL_OVERHEAD ||
	    inlen > INT_MAX)
		return -1;
	ctlen = inlen - SEAL_OVERHEAD;
	if (ctlen > outcap || (out == NULL && ctlen > 0))
		return -1;
	if (aad == NULL)
		aad = "";
	if ((aadlen = strlen(aad)) > INT_MAX)
		return -1;
	memcpy(tag, i + GCM_NONCE_LEN + ctlen, GCM_TAG_LEN);
	if ((ctx = EVP_CIPHER_CTX_new()) == NULL) {
		log_warnx("EVP_CIPHER_CTX_new failed");
		return -1;
	}
	if (EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, GCM_NONCE_LEN,
	    NULL) != 1 ||
	    EVP_DecryptInit_ex(ctx, NULL, NULL, key, i) != 1)
		goto out;
	if (aadlen > 0 && EVP_DecryptUpdate(ctx, NULL, &n,
	    (const unsigned char *)aad, (int)aadlen) != 1)
		goto out;
	total = 0;
	if (ctlen > 0) {
		if (EVP_DecryptUpdate(ctx, out, &n, i + GCM_NONCE_LEN,
		    (int)ctlen) != 1)
			goto out;
		total = n;
	}
	if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, GCM_TAG_LEN,
	    tag) != 1)
		goto out;
	/* The tag is checked here; nothing is trusted before it passes. */
	if (EVP_DecryptFinal_ex(ctx, (unsigned char *)out + total, &n) != 1)
		goto out;
	total += n;
	if ((size_t)total != ctlen)
		goto out;
	rc = (int64_t)ctlen;
out:
	if (rc == -1 && out != NULL && ctlen > 0)
		crypto_wipe(out, ctlen);
	EVP_CIPHER_CTX_free(ctx);
	return rc;
}

/*
 * Read the key file through one descriptor (fstat on the open file, so
 * the checked file is the read one): a regular file, no group or other
 * permission bits, exactly 64 hex digits and an optional '\n'.  Returns
 * 0 with key filled, or -1 with the reason logged; the read buffer is
 * wiped either way.
 */
int
crypto_master_key_load(const char *path, uint8_t key[MASTER_KEY_LEN])
{
	struct stat	 st;
	char		 buf[MASTER_KEY_LEN * 2 + 2];
	size_t		 len, keylen, i;
	ssize_t		 r;
	int		 fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		log_error("master key %s", path);
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		log_error("master key %s: fstat", path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		log_errorx("master key %s: not a regular file", path);
		goto out;
	}
	if ((st.st_mode & 077) != 0) {
		log_errorx("master key %s: mode %03o, readable by group or "
		    "others; chmod 600 it", path,
		    (unsigned int)(st.st_mode & 0777));
		goto out;
	}
	/* Read one byte more than the longest valid file to see excess. */
	len = 0;
	while (len < sizeof(buf)) {
		r = read(fd, buf + len, sizeof(buf) - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			log_error("master key %s: read", path);
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	keylen = len;
	if (keylen == MASTER_KEY_LEN * 2 + 1 && buf[keylen - 1] == '\n')
		keylen--;
	if (keylen != MASTER_KEY_LEN * 2) {
		log_errorx("master key %s: expected %d hexadecimal digits",
		    path, MASTER_KEY_LEN * 2);
		goto out;
	}
	for (i = 0; i < keylen; i++) {
		if (OPENSSL_hexchar2int((unsigned char)buf[i]) < 0) {
			log_errorx("master key %s: expected %d hexadecimal "
			    "digits", path, MASTER_KEY_LEN * 2);
			goto out;
		}
	}
	for (i = 0; i < MASTER_KEY_LEN; i++)
		key[i] = (uint8_t)(OPENSSL_hexchar2int(
		    (unsigned char)buf[2 * i]) << 4 |
		    OPENSSL_hexchar2int((unsigned char)buf[2 * i + 1]));
	rc = 0;
out:
	crypto_wipe(buf, sizeof(buf));
	close(fd);
	return rc;
}

/* OPENSSL_cleanse() len bytes of buf; NULL or 0 does nothing. */
void
crypto_wipe(void *buf, size_t len)
{
	if (buf != NULL && len > 0)
		OPENSSL_cleanse(buf, len);
}

int
crypto_sha256(const void *msg, size_t len, uint8_t md[SHA256_LEN])
{
	unsigned int	 n = 0;

	if (EVP_Digest(msg, len, md, &n, EVP_sha256(), NULL) != 1 ||
	    n != SHA256_LEN)
		return -1;
	return 0;
}

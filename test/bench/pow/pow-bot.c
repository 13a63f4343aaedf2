/*
 * pow-bot.c - what proof of work costs a bot written in C: SHA-256 of
 * "challenge.nonce" with OpenSSL on one core, the challenge's prefix
 * hashed once and its state copied per nonce (a bot's midstate trick),
 * for the whole run.  Prints the hashes per second, and the median and
 * 95th percentile solve time of N random challenges at BITS.
 *   pow-bot [BITS [N]]      (defaults 15 and 200)
 */
#include <openssl/evp.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now_s(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
zero_bits(const unsigned char *h)
{
	int	 n = 0, i;

	for (i = 0; i < 32; i++) {
		if (h[i] == 0) {
			n += 8;
			continue;
		}
		return n + __builtin_clz(h[i]) - 24;
	}
	return n;
}

static int
cmp(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char *argv[])
{
	static const char	 b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-_";
	int			 bits = argc > 1 ? atoi(argv[1]) : 15;
	int			 n = argc > 2 ? atoi(argv[2]) : 200;
	EVP_MD_CTX		*pre = EVP_MD_CTX_new(), *c = EVP_MD_CTX_new();
	unsigned char		 h[32];
	unsigned int		 hl;
	char			 ch[90], nonce[32];
	double			*t = calloc((size_t)n, sizeof(double));
	double			 t0, all0;
	uint64_t		 hashes = 0, k;
	int			 i, j, len;

	if (pre == NULL || c == NULL || t == NULL)
		return 1;
	srand((unsigned)time(NULL));
	all0 = now_s();
	for (i = 0; i < n; i++) {
		for (j = 0; j < 88; j++)
			ch[j] = b64[rand() % 64];
		ch[88] = '.';
		t0 = now_s();
		EVP_DigestInit_ex(pre, EVP_sha256(), NULL);
		EVP_DigestUpdate(pre, ch, 89);
		for (k = 0;; k++) {
			len = snprintf(nonce, sizeof(nonce), "%llu",
			    (unsigned long long)k);
			EVP_MD_CTX_copy_ex(c, pre);
			EVP_DigestUpdate(c, nonce, (size_t)len);
			EVP_DigestFinal_ex(c, h, &hl);
			hashes++;
			if (zero_bits(h) >= bits)
				break;
		}
		t[i] = now_s() - t0;
	}
	qsort(t, (size_t)n, sizeof(double), cmp);
	printf("C bot (OpenSSL SHA-256, one core): %.0f hashes/s; %d "
	    "challenges at %d bits: median %.1f ms, p95 %.1f ms\n",
	    hashes / (now_s() - all0), n, bits, t[n / 2] * 1e3,
	    t[(int)(n * 0.95)] * 1e3);
	EVP_MD_CTX_free(pre);
	EVP_MD_CTX_free(c);
	free(t);
	return 0;
}

/* numtext: "%.17g" and "%d" without printf. glibc's printf formats a double
 * with multi-precision arithmetic, which was half the time of an
 * in-process job; here the 17 digits come from one 128-bit product and a
 * shift or division, rounded half to even like printf, and laid out with
 * %g's rules. Values outside the range where that product fits fall back
 * to snprintf itself, so the text is always printf's. */
#include "numtext.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef unsigned __int128 u128;

#define DIGITS 17

static const uint64_t pow10_u64[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
    10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
    100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull, 1000000000000000000ull,
    10000000000000000000ull,
};

/* 10^k for 0 <= k <= 38 */
static u128 pow10_u128(int k)
{
    return k < 20 ? pow10_u64[k] : (u128)pow10_u64[19] * pow10_u64[k - 19];
}

static int bit_length(u128 x)
{
    uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
    return hi ? 128 - __builtin_clzll(hi) : lo ? 64 - __builtin_clzll(lo) : 0;
}

/* Round-half-even of m * 2^e2 * 10^k into *d, with *fl its floor; 0 when
 * the exact product does not fit in 128 bits. */
static int scaled(uint64_t m, int e2, int k, u128 *fl, u128 *d)
{
    u128 num = m, rem = 0, den = 1;
    if (k > 0) {
        if (k > 22)  /* 2^53 * 10^22 < 2^127 */
            return 0;
        num *= pow10_u128(k);
    }
    if (e2 > 0) {
        if (bit_length(num) + e2 > 127)
            return 0;
        num <<= e2;
    }
    if (k < 0) {
        if (-k > 38 || e2 < 0)
            return 0;
        den = pow10_u128(-k);
        *fl = num / den;
        rem = num % den;
    } else if (e2 < 0) {
        if (-e2 > 126)
            return 0;
        den = (u128)1 << -e2;
        *fl = num >> -e2;
        rem = num & (den - 1);
    } else {
        *fl = num;
    }
    *d = *fl;
    if (rem && (rem > den - rem || (rem == den - rem && (*fl & 1))))
        *d += 1;
    return 1;
}

/* The 17 significant digits of a (> 0, finite) and its decimal exponent x
 * (a = d.ddd * 10^x after rounding); 0 when out of the exact range. */
static int digits17(double a, char dig[DIGITS], int *x)
{
    int e2;
    double fr = frexp(a, &e2);
    uint64_t m = (uint64_t)ldexp(fr, 53);  /* exact: fr has 53 bits */
    e2 -= 53;
    const u128 lo = pow10_u128(DIGITS - 1), hi = lo * 10;
    int ex = (int)floor(log10(a));
    u128 fl, d;
    for (int tries = 0; ; tries++) {
        if (tries > 3 || !scaled(m, e2, DIGITS - 1 - ex, &fl, &d))
            return 0;
        if (fl < lo)
            ex--;
        else if (fl >= hi)
            ex++;
        else
            break;
    }
    if (d == hi) {  /* 99...9.5 rounded up to a new power of ten */
        d = lo;
        ex++;
    }
    uint64_t d64 = (uint64_t)d;  /* < 10^17: 64-bit division from here */
    for (int i = DIGITS - 1; i >= 0; i--) {
        dig[i] = (char)('0' + (int)(d64 % 10));
        d64 /= 10;
    }
    *x = ex;
    return 1;
}

/* %g's layout of 17 digits with exponent x, trailing zeros dropped. */
static size_t layout(int neg, const char dig[DIGITS], int x, char *out)
{
    int last = DIGITS - 1;
    while (last > 0 && dig[last] == '0')
        last--;
    size_t n = 0;
    if (neg)
        out[n++] = '-';
    if (x < -4 || x >= DIGITS) {
        out[n++] = dig[0];
        if (last > 0) {
            out[n++] = '.';
            for (int i = 1; i <= last; i++)
                out[n++] = dig[i];
        }
        out[n++] = 'e';
        out[n++] = x < 0 ? '-' : '+';
        int ax = x < 0 ? -x : x;
        if (ax >= 100)
            out[n++] = (char)('0' + ax / 100);
        out[n++] = (char)('0' + ax / 10 % 10);
        out[n++] = (char)('0' + ax % 10);
    } else if (x >= 0) {
        for (int i = 0; i <= x; i++)
            out[n++] = dig[i];
        if (last > x) {
            out[n++] = '.';
            for (int i = x + 1; i <= last; i++)
                out[n++] = dig[i];
        }
    } else {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -x - 1; i++)
            out[n++] = '0';
        for (int i = 0; i <= last; i++)
            out[n++] = dig[i];
    }
    out[n] = '\0';
    return n;
}

size_t num_g17(double v, char *out)
{
    char dig[DIGITS];
    int x;
    if (isfinite(v) && v != 0 && digits17(fabs(v), dig, &x))
        return layout(v < 0, dig, x, out);
    int n = snprintf(out, NUM_TEXT_MAX, "%.17g", v);
    return n > 0 ? (size_t)n : 0;
}

size_t num_int(int i, char *out)
{
    char tmp[16];
    size_t n = 0, len = 0;
    /* through unsigned: -INT_MIN does not fit in an int */
    unsigned u = i < 0 ? 0u - (unsigned)i : (unsigned)i;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (i < 0)
        out[len++] = '-';
    while (n)
        out[len++] = tmp[--n];
    out[len] = '\0';
    return len;
}

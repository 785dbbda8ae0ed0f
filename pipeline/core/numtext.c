/* numtext: "%.17g", the shortest round-trip text of a double, and "%d"
 * without printf. glibc's printf formats a double
 * with multi-precision arithmetic, which was half the time of an
 * in-process job; here the 17 digits come from one 128-bit product and a
 * shift or division, rounded half to even like printf, and laid out with
 * %g's rules. Values outside the range where that product fits fall back
 * to snprintf itself, so the text is always printf's. */
#include "numtext.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
 * the exact product does not fit in 128 bits. When q is not NULL, q[0] is
 * the remainder of the floor and q[1] the gap between a's neighbouring
 * doubles, both in units of the divisor (for the round-trip test). */
static int scaled_q(uint64_t m, int e2, int k, u128 *fl, u128 *d, u128 *q)
{
    u128 num = m, rem = 0, den = 1, gap = 1;
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
    if (k < 0 && e2 < 0) {
        if (-k > 38 || bit_length(pow10_u128(-k)) - e2 > 127)
            return 0;
        den = pow10_u128(-k) << -e2;
        *fl = num / den;
        rem = num % den;
    } else if (k < 0) {
        if (-k > 38)
            return 0;
        den = pow10_u128(-k);
        gap = (u128)1 << e2;
        *fl = num / den;
        rem = num % den;
    } else if (e2 < 0) {
        if (-e2 > 126)
            return 0;
        den = (u128)1 << -e2;
        gap = pow10_u128(k);
        *fl = num >> -e2;
        rem = num & (den - 1);
    } else {
        *fl = num;
    }
    *d = *fl;
    if (rem && (rem > den - rem || (rem == den - rem && (*fl & 1))))
        *d += 1;
    if (q) {
        q[0] = rem;
        q[1] = gap;
        q[2] = den;
    }
    return 1;
}

static int scaled(uint64_t m, int e2, int k, u128 *fl, u128 *d)
{
    return scaled_q(m, e2, k, fl, d, NULL);
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

/* ---- shortest round-trip digits ---- */

/* Whether the decimal d (the floor fl rounded) lies strictly inside the
 * interval of reals that read back as m * 2^e2: its distance from the
 * exact value, r / den, under half the gap to the neighbouring double (a
 * quarter below a power of two, where the gap below halves). Ties count
 * as misses, so a written number always reads back. */
static int reads_back(uint64_t m, u128 fl, u128 d, const u128 q[3])
{
    u128 r = d == fl ? q[0] : q[2] - q[0];
    u128 g = q[1];
    int even = !(m & 1);
    if (d == fl && m == (1ull << 52))  /* 4r < gap, = on a tie to even */
        return r < g / 4 || (r == g / 4 && g % 4 == 0 && even);
    return r < g / 2 || (r == g / 2 && g % 2 == 0 && even);
}

/* a's p significant digits, rounded half to even, in *d (p digits) with
 * the decimal exponent *x of the first; *ok when they read back as a.
 * 0 when out of the exact range. */
static int round_at(uint64_t m, int e2, int ex, int p, u128 *d, int *x,
                    int *ok)
{
    u128 fl, q[3];
    const u128 lo = pow10_u128(p - 1), hi = lo * 10;
    for (int tries = 0; ; tries++) {
        if (tries > 2 || !scaled_q(m, e2, p - 1 - ex, &fl, d, q))
            return 0;
        if (fl < lo)
            ex--;
        else if (fl >= hi)
            ex++;
        else
            break;
    }
    *ok = reads_back(m, fl, *d, q);
    if (*d == hi) {  /* 99...9.5 rounded up to a new power of ten */
        *d = lo;
        ex++;
    }
    *x = ex;
    return 1;
}

/* The shortest digits of a (> 0, finite) that read back as a, padded
 * with '0' to 17, and their decimal exponent *x; 0 when out of the exact
 * range. A decimal of at most 15 digits that reads back as a is what a
 * rounded to 15 digits gives (DBL_DIG), so 15, 16 and 17 digits are the
 * only candidates; trailing zeros are dropped by the layout. */
static int digits_short(double a, char dig[DIGITS], int *x)
{
    int e2;
    double fr = frexp(a, &e2);
    uint64_t m = (uint64_t)ldexp(fr, 53);  /* exact: fr has 53 bits */
    e2 -= 53;
    int ex = (int)floor(log10(a));
    for (int p = 15; p < DIGITS; p++) {
        u128 d;
        int ok;
        if (!round_at(m, e2, ex, p, &d, x, &ok))
            return 0;
        if (!ok)
            continue;
        uint64_t d64 = (uint64_t)d;
        memset(dig, '0', DIGITS);
        for (int i = p - 1; i >= 0; i--) {
            dig[i] = (char)('0' + (int)(d64 % 10));
            d64 /= 10;
        }
        return 1;
    }
    return digits17(a, dig, x);
}

/* The slow way, for magnitudes outside the exact range: printf at each
 * precision until strtod gives a back, its digits laid out like the
 * fast path's. */
static size_t short_by_printf(double v, char *out)
{
    char s[64];
    for (int p = 1; p <= DIGITS; p++) {
        snprintf(s, sizeof s, "%.*e", p - 1, v);
        if (strtod(s, NULL) == v || p == DIGITS)
            break;
    }
    char dig[DIGITS];
    memset(dig, '0', DIGITS);
    const char *c = s + (s[0] == '-');
    int n = 0;
    for (; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9' && n < DIGITS)
            dig[n++] = *c;
    int x = *c == 'e' ? atoi(c + 1) : 0;
    return layout(v < 0, dig, x, out);
}

size_t num_short(double v, char *out)
{
    char dig[DIGITS];
    int x;
    if (!isfinite(v)) {
        int n = snprintf(out, NUM_TEXT_MAX, "%g", v);
        return n > 0 ? (size_t)n : 0;
    }
    if (v == 0) {
        size_t n = 0;
        if (signbit(v))
            out[n++] = '-';
        out[n++] = '0';
        out[n] = '\0';
        return n;
    }
    if (digits_short(fabs(v), dig, &x))
        return layout(v < 0, dig, x, out);
    return short_by_printf(v, out);
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

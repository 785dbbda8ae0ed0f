/* test_numtext: num_g17 writes exactly what printf("%.17g") writes — on
 * random bit patterns, on every decade the results span, on exact ties
 * (dyadic values halfway between two 17-digit decimals, where printf
 * rounds half to even), at powers of ten and the edges of %g's layout —
 * and num_int what printf("%d") writes; num_short writes the fewest
 * digits that read back as the same double, as many as the shortest
 * "%.Ne" that strtod reads back, integers as integers. */
#include "testutil.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "numtext.h"
#include "util.h"

#include <cjson/cJSON.h>

/* A fixed xorshift stream: the same values on every run. */
static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static int same_as_printf(double v)
{
    char mine[NUM_TEXT_MAX], ref[64];
    size_t n = num_g17(v, mine);
    snprintf(ref, sizeof ref, "%.17g", v);
    if (strcmp(mine, ref) != 0 || n != strlen(ref)) {
        ck_abort_msg("%a: num_g17 \"%s\" (%zu), printf \"%s\"", v, mine, n,
                     ref);
        return 0;
    }
    return 1;
}

START_TEST(random_bit_patterns)
{
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < 300000; i++) {
        uint64_t bits = next(&s);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v))
            same_as_printf(v);
    }
}
END_TEST

START_TEST(every_decade_results_span)
{
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int e = -12; e <= 26; e++)
        for (int i = 0; i < 20000; i++) {
            double f = (double)(next(&s) >> 11) / 9007199254740992.0;
            double v = (1 + 9 * f) * pow(10, e);
            same_as_printf(v);
            same_as_printf(-v);
        }
}
END_TEST

START_TEST(exact_ties_round_half_even)
{
    /* small odd integers times powers of two: exact binary values whose
     * decimal expansion may end exactly at a half in the 18th digit */
    for (int e = -80; e <= 80; e++)
        for (uint64_t m = 1; m < 4000; m += 2)
            same_as_printf(ldexp((double)m, e));
    /* 2^-k has k decimal digits after the point and ends in 5 */
    for (int k = 1; k < 1074; k++)
        same_as_printf(ldexp(1.0, -k));
    /* integers around 10^17, where 17 digits stop being exact */
    for (uint64_t n = 99999999999999000ull; n < 100000000000002000ull;
         n += 7)
        same_as_printf((double)n);
}
END_TEST

START_TEST(powers_of_ten_and_layout_edges)
{
    for (int e = -320; e <= 308; e++) {
        double p = pow(10, e);
        same_as_printf(p);
        same_as_printf(nextafter(p, 0));
        same_as_printf(nextafter(p, INFINITY));
    }
    /* %g switches to exponent form below 1e-4 and from 1e17 */
    const double edges[] = {0.0001, 0.00009999999999999999, 1e17,
                            99999999999999984.0, 0, -0.0, 1, -1, 0.1, 0.5,
                            DBL_MAX, DBL_MIN, DBL_TRUE_MIN, 123456789012345678.0,
                            2.216767852830806e-05, 218.56067837486131,
                            0.66666666666666663, 293.98000000000002};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        same_as_printf(edges[i]);
    char out[NUM_TEXT_MAX];
    num_g17(NAN, out);
    ck_assert_str_eq(out, "nan");
    num_g17(-INFINITY, out);
    ck_assert_str_eq(out, "-inf");
}
END_TEST

START_TEST(integers_as_printf)
{
    const int v[] = {0, 1, -1, 9, 10, -10, 16384, 49152, INT_MAX, INT_MIN,
                     INT_MIN + 1, 1000000000, -999999999};
    char mine[NUM_TEXT_MAX], ref[32];
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        size_t n = num_int(v[i], mine);
        snprintf(ref, sizeof ref, "%d", v[i]);
        ck_assert_str_eq(mine, ref);
        ck_assert_uint_eq(n, strlen(ref));
    }
}
END_TEST

/* The fewest significant digits N for which "%.(N-1)e" reads back as v. */
static int shortest_by_printf(double v)
{
    char s[64];
    for (int p = 1; p < 17; p++) {
        snprintf(s, sizeof s, "%.*e", p - 1, v);
        if (strtod(s, NULL) == v)
            return p;
    }
    return 17;
}

/* Significant digits in a number's text (mantissa, zeros trimmed). */
static int sig_digits(const char *t)
{
    int n = 0, z = 0, started = 0;
    for (const char *c = t; *c && *c != 'e'; c++) {
        if (*c < '0' || *c > '9')
            continue;
        started |= *c != '0';
        if (!started)
            continue;
        if (*c == '0') {
            z++;
        } else {
            n += z + 1;
            z = 0;
        }
    }
    return n ? n : 1;
}

static void shortest_reads_back(double v)
{
    char out[NUM_TEXT_MAX];
    size_t n = num_short(v, out);
    ck_assert_uint_eq(n, strlen(out));
    ck_assert_msg(strtod(out, NULL) == v && signbit(strtod(out, NULL))
                  == signbit(v), "%a: num_short \"%s\" reads back as %a", v,
                  out, strtod(out, NULL));
    ck_assert_msg(sig_digits(out) == shortest_by_printf(v),
                  "%a: num_short \"%s\" has %d digits, the shortest has %d",
                  v, out, sig_digits(out), shortest_by_printf(v));
}

START_TEST(shortest_reads_back_random)
{
    uint64_t s = 0x2545f4914f6cdd1dull;
    for (int i = 0; i < 100000; i++) {
        uint64_t bits = next(&s);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (isfinite(v))
            shortest_reads_back(v);
    }
    for (int e = -12; e <= 24; e++)
        for (int i = 0; i < 2000; i++) {
            double f = (double)(next(&s) >> 11) / 9007199254740992.0;
            shortest_reads_back((1 + 9 * f) * pow(10, e));
            /* values with few digits: config-derived metrics */
            shortest_reads_back((double)(next(&s) % 100000) / pow(10, e % 8));
        }
    /* ties at 2^k boundaries and large integers with even mantissas */
    for (int e = -60; e <= 80; e++)
        for (uint64_t m = 1; m < 600; m += 1)
            shortest_reads_back(ldexp((double)m, e));
    for (int k = 53; k < 70; k++) {
        shortest_reads_back(ldexp(1.0, k));
        shortest_reads_back(nextafter(ldexp(1.0, k), 0));
        shortest_reads_back(nextafter(ldexp(1.0, k), INFINITY));
    }
}
END_TEST

START_TEST(shortest_layout)
{
    const struct { double v; const char *text; } cases[] = {
        {293.98000000000002, "293.98"}, {3391488, "3391488"},
        {0.66666666666666663, "0.6666666666666666"}, {0.5, "0.5"},
        {1, "1"}, {100000, "100000"}, {1e16, "10000000000000000"},
        {1e17, "1e+17"}, {7.9046857887232506e-11, "7.90468578872325e-11"},
        {216.81680644846801, "216.81680644846801"}, {0.0001, "0.0001"},
        {1e-5, "1e-05"}, {-2.5, "-2.5"}, {0, "0"}, {-0.0, "-0"},
        {DBL_TRUE_MIN, "5e-324"}, {DBL_MAX, "1.7976931348623157e+308"},
    };
    char out[NUM_TEXT_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        num_short(cases[i].v, out);
        ck_assert_str_eq(out, cases[i].text);
    }
    num_short(NAN, out);
    ck_assert_str_eq(out, "nan");
    num_short(-INFINITY, out);
    ck_assert_str_eq(out, "-inf");
}
END_TEST

/* A JSON line for the journal keeps every bit of every number (cJSON's
 * own printer stops at 15 digits when they come within an epsilon), the
 * members' names and order, nested arrays, and writes non-finite as null. */
START_TEST(json_line_keeps_every_bit)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "t", 0.1 + 0.2);
    cJSON_AddNumberToObject(o, "n", 16777216);
    cJSON *a = cJSON_AddArrayToObject(o, "a");
    cJSON_AddItemToArray(a, cJSON_CreateNumber(3.0000000000000004e-05));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(NAN));
    cJSON *in = cJSON_AddObjectToObject(o, "in");
    cJSON_AddNumberToObject(in, "x", 0.008605446096463023);
    cJSON_AddStringToObject(in, "s", "1.5");
    char *line = util_json_line_exact(o);
    ck_assert_ptr_nonnull(line);
    ck_assert_str_eq(line, "{\"t\":0.30000000000000004,\"n\":16777216,"
                     "\"a\":[3.0000000000000004e-05,null],"
                     "\"in\":{\"x\":0.008605446096463023,\"s\":\"1.5\"}}");
    cJSON *back = cJSON_Parse(line);
    ck_assert(cJSON_GetObjectItem(back, "t")->valuedouble == 0.1 + 0.2);
    ck_assert(cJSON_GetObjectItem(cJSON_GetObjectItem(back, "in"), "x")
              ->valuedouble == 0.008605446096463023);
    /* the caller's tree is untouched */
    ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(o, "t")));
    cJSON_Delete(back);
    cJSON_Delete(o);
    free(line);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("numtext");
    TCase *t = tcase_create("core");
    tcase_add_test(t, random_bit_patterns);
    tcase_add_test(t, every_decade_results_span);
    tcase_add_test(t, exact_ties_round_half_even);
    tcase_add_test(t, powers_of_ten_and_layout_edges);
    tcase_add_test(t, integers_as_printf);
    tcase_add_test(t, shortest_reads_back_random);
    tcase_add_test(t, shortest_layout);
    tcase_add_test(t, json_line_keeps_every_bit);
    suite_add_tcase(s, t);
    return tu_run_suite(s);
}

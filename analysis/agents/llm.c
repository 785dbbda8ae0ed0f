/* llm: the HTTP clients of the LLM providers over libcurl — Anthropic
 * Messages and OpenAI-compatible chat completions — with timeouts, retries
 * with backoff on 429/5xx honouring Retry-After, a request cap, and a cache
 * of every request and answer by content hash. The key comes from the
 * environment into one request header and is redacted from anything
 * written. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "agents.h"
#include "agents_llm.h"

#define MAX_ANSWER (4u << 20)   /* bytes of one HTTP answer */
#define MAX_WAIT_S 60.0         /* longest single retry wait */
#define ANTHROPIC_URL "https://api.anthropic.com"
#define OPENAI_URL "https://api.openai.com/v1"

void agents_llm_init(agents_llm *l, const camp_agents *cfg,
                     const char *cache_dir)
{
    memset(l, 0, sizeof *l);
    l->cfg = *cfg;
    if (cache_dir)
        util_strlcpy(l->cache_dir, cache_dir, sizeof l->cache_dir);
}

char *agents_redact(const char *s, const char *key)
{
    util_buf b;
    util_buf_init(&b);
    size_t kl = key ? strlen(key) : 0;
    const char *p = s;
    while (kl && *p) {
        const char *hit = strstr(p, key);
        if (!hit)
            break;
        util_buf_add(&b, p, (size_t)(hit - p));
        util_buf_puts(&b, "[redacted]");
        p = hit + kl;
    }
    util_buf_puts(&b, p);
    if (!b.s)
        util_buf_add(&b, "", 0);
    return b.s;
}

/* ---- replies ------------------------------------------------------------ */

/* The status of a "STATUS: X" line (markdown decorations allowed), or -1. */
static int status_line(const char *line, size_t len)
{
    char buf[64];
    size_t j = 0;
    for (size_t i = 0; i < len && j + 1 < sizeof buf; i++)
        if (line[i] != '*' && line[i] != '`' && line[i] != '#')
            buf[j++] = line[i];
    buf[j] = 0;
    char *p = buf;
    while (isspace((unsigned char)*p))
        p++;
    if (strncasecmp(p, "STATUS:", 7) != 0)
        return -1;
    p += 7;
    while (isspace((unsigned char)*p))
        p++;
    char *e = p + strlen(p);
    while (e > p && (isspace((unsigned char)e[-1]) || e[-1] == '.'))
        *--e = 0;
    return agents_status_parse(p);
}

/* Append text with control characters as single spaces, capped at n-1
 * bytes without splitting a UTF-8 sequence. */
static void clean_append(char *out, size_t n, const char *s, size_t len)
{
    size_t j = strlen(out);
    for (size_t i = 0; i < len && j + 1 < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f || ch == '*' || ch == '`') {
            if (ch != '*' && ch != '`' && j > 0 && out[j - 1] != ' ')
                out[j++] = ' ';
            continue;
        }
        if (ch == ' ' && (j == 0 || out[j - 1] == ' '))
            continue;
        out[j++] = (char)ch;
    }
    while (j > 0 && ((unsigned char)out[j - 1] & 0xC0) == 0x80)
        j--;   /* drop a possibly cut multi-byte tail ... */
    if (j > 0 && ((unsigned char)out[j - 1] & 0xC0) == 0xC0)
        j--;   /* ... and its lead byte */
    out[j] = 0;
}

int agents_parse_reply(const char *reply, char *text, size_t outsz,
                       int *status)
{
    const char *last = NULL;
    size_t lastlen = 0;
    int st = -1;
    for (const char *p = reply; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int s = status_line(p, len);
        if (s >= 0) {
            st = s;
            last = p;
            lastlen = len;
        }
        p += len + (e ? 1 : 0);
    }
    text[0] = 0;
    if (st < 0)
        return -1;
    for (const char *p = reply; p < last;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (status_line(p, len) < 0) {
            clean_append(text, outsz, p, len);
            clean_append(text, outsz, " ", 1);
        }
        p += len + (e ? 1 : 0);
    }
    (void)lastlen;
    size_t n = strlen(text);
    while (n && text[n - 1] == ' ')
        text[--n] = 0;
    if (!n)
        return -1;
    *status = st;
    return 0;
}

/* ---- requests ------------------------------------------------------------ */

static int is_anthropic(const agents_llm *l)
{
    return strcmp(l->cfg.provider, "anthropic") == 0;
}

static const char *key_env(const agents_llm *l)
{
    if (l->cfg.key_env[0])
        return l->cfg.key_env;
    return is_anthropic(l) ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
}

static const char *the_key(const agents_llm *l)
{
    const char *k = getenv(key_env(l));
    return k && *k ? k : NULL;
}

static void request_url(const agents_llm *l, char *out, size_t n)
{
    const char *base = l->cfg.endpoint[0] ? l->cfg.endpoint
                       : is_anthropic(l) ? ANTHROPIC_URL : OPENAI_URL;
    size_t bl = strlen(base);
    while (bl && base[bl - 1] == '/')
        bl--;
    const char *suffix = "/chat/completions";
    if (is_anthropic(l))
        suffix = bl >= 3 && strncmp(base + bl - 3, "/v1", 3) == 0
                 ? "/messages" : "/v1/messages";
    snprintf(out, n, "%.*s%s", (int)bl, base, suffix);
}

static char *request_body(const agents_llm *l, const char *system,
                          const char *user)
{
    cJSON *root = cJSON_CreateObject(), *msgs = cJSON_CreateArray();
    cJSON_AddStringToObject(root, "model", l->cfg.model[0] ? l->cfg.model
                            : is_anthropic(l) ? "claude-3-5-haiku-latest"
                            : "gpt-4o-mini");
    cJSON_AddNumberToObject(root, "max_tokens", l->cfg.max_tokens);
    cJSON_AddNumberToObject(root, "temperature", l->cfg.temperature);
    if (is_anthropic(l)) {
        cJSON_AddStringToObject(root, "system", system);
    } else {
        cJSON *m = cJSON_CreateObject();
        cJSON_AddStringToObject(m, "role", "system");
        cJSON_AddStringToObject(m, "content", system);
        cJSON_AddItemToArray(msgs, m);
    }
    cJSON *u = cJSON_CreateObject();
    cJSON_AddStringToObject(u, "role", "user");
    cJSON_AddStringToObject(u, "content", user);
    cJSON_AddItemToArray(msgs, u);
    cJSON_AddItemToObject(root, "messages", msgs);
    char *s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return s;
}

/* The model's text in an answer, malloc'd; NULL when malformed. */
static char *answer_text(const agents_llm *l, const char *body)
{
    cJSON *root = cJSON_Parse(body);
    util_buf b;
    util_buf_init(&b);
    if (is_anthropic(l)) {
        cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "content"), *it;
        if (!cJSON_IsArray(c))
            c = NULL;
        cJSON_ArrayForEach(it, c) {
            cJSON *t = cJSON_GetObjectItemCaseSensitive(it, "text");
            if (cJSON_IsString(t))
                util_buf_puts(&b, t->valuestring);
        }
    } else {
        cJSON *ch = cJSON_GetObjectItemCaseSensitive(root, "choices");
        cJSON *m = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_IsArray(ch) ? ch : NULL, 0), "message");
        cJSON *t = cJSON_GetObjectItemCaseSensitive(m, "content");
        if (cJSON_IsString(t))
            util_buf_puts(&b, t->valuestring);
    }
    cJSON_Delete(root);
    if (!b.s || !b.len) {
        util_buf_free(&b);
        return NULL;
    }
    return b.s;
}

typedef struct {
    util_buf body;
    double retry_after;   /* seconds; < 0 when absent */
    int too_big;
} http_answer;

static size_t on_body(char *p, size_t sz, size_t nm, void *ud)
{
    http_answer *a = ud;
    size_t n = sz * nm;
    if (a->body.len + n > MAX_ANSWER) {
        a->too_big = 1;
        return 0;
    }
    util_buf_add(&a->body, p, n);
    return n;
}

static size_t on_header(char *p, size_t sz, size_t nm, void *ud)
{
    http_answer *a = ud;
    size_t n = sz * nm;
    if (n > 12 && strncasecmp(p, "retry-after:", 12) == 0) {
        char v[32];
        size_t vl = n - 12 < sizeof v - 1 ? n - 12 : sizeof v - 1;
        memcpy(v, p + 12, vl);
        v[vl] = 0;
        char *e;
        double d = strtod(v, &e);
        while (*e == ' ' || *e == '\r' || *e == '\n')
            e++;
        if (e != v && !*e && isfinite(d) && d >= 0)
            a->retry_after = d;
    }
    return n;
}

/* One HTTP POST; *status is the HTTP code (0 when none came). */
static CURLcode post_once(const agents_llm *l, const char *url,
                          const char *body, http_answer *a, long *status,
                          char *curlerr)
{
    CURL *c = curl_easy_init();
    if (!c)
        return CURLE_FAILED_INIT;
    struct curl_slist *h = curl_slist_append(NULL,
                                             "Content-Type: application/json");
    const char *key = the_key(l);
    char auth[1024];
    auth[0] = 0;
    if (key && is_anthropic(l))
        snprintf(auth, sizeof auth, "x-api-key: %s", key);
    else if (key)
        snprintf(auth, sizeof auth, "Authorization: Bearer %s", key);
    if (auth[0])
        h = curl_slist_append(h, auth);
    if (is_anthropic(l))
        h = curl_slist_append(h, "anthropic-version: 2023-06-01");
    long tmo = (long)(l->cfg.timeout_s * 1000);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, tmo > 0 ? tmo : 60000L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                     tmo > 0 && tmo < 10000 ? tmo : 10000L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, a);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curlerr);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "gpudse/" GPUDSE_VERSION);
    CURLcode rc = curl_easy_perform(c);
    *status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(c);
    curl_slist_free_all(h);
    memset(auth, 0, sizeof auth);
    return rc;
}

static void wait_s(double s)
{
    if (s <= 0)
        return;
    if (s > MAX_WAIT_S)
        s = MAX_WAIT_S;
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Reason text for an answer body: a short, key-free, printable excerpt. */
static void body_excerpt(const agents_llm *l, const util_buf *b, char *out,
                         size_t n)
{
    char raw[128];
    size_t len = b->len < sizeof raw - 1 ? b->len : sizeof raw - 1;
    memcpy(raw, b->s ? b->s : "", len);
    raw[len] = 0;
    char *red = agents_redact(raw, the_key(l));
    out[0] = 0;
    clean_append(out, n, red, strlen(red));
    free(red);
}

static int retryable(CURLcode rc, long status)
{
    if (rc != CURLE_OK)
        return rc == CURLE_OPERATION_TIMEDOUT || rc == CURLE_COULDNT_CONNECT
               || rc == CURLE_GOT_NOTHING || rc == CURLE_RECV_ERROR
               || rc == CURLE_SEND_ERROR || rc == CURLE_PARTIAL_FILE;
    return status == 429 || (status >= 500 && status <= 599);
}

/* POST with retries; on success *answer is the body (malloc'd). */
static int post(agents_llm *l, const char *url, const char *body,
                char **answer, gd_err *err)
{
    char curlerr[CURL_ERROR_SIZE];
    for (int attempt = 0; attempt <= l->cfg.retries; attempt++) {
        if (l->requests >= l->cfg.max_requests) {
            l->down = 1;
            return gd_errf(err, GD_EENV, "agents: the spending cap of %ld "
                           "requests (max-requests) is reached",
                           l->cfg.max_requests);
        }
        l->requests++;
        http_answer a = {{0}, -1, 0};
        util_buf_init(&a.body);
        long status = 0;
        curlerr[0] = 0;
        CURLcode rc = post_once(l, url, body, &a, &status, curlerr);
        if (rc == CURLE_OK && status >= 200 && status < 300) {
            util_buf_add(&a.body, "", 0);
            *answer = a.body.s;
            return GD_OK;
        }
        char why[256];
        if (rc != CURLE_OK)
            snprintf(why, sizeof why, "%s", a.too_big
                     ? "answer larger than 4 MiB"
                     : curlerr[0] ? curlerr : curl_easy_strerror(rc));
        else {
            char ex[160];
            body_excerpt(l, &a.body, ex, sizeof ex);
            snprintf(why, sizeof why, "HTTP %ld: %s", status, ex);
        }
        double ra = a.retry_after;
        util_buf_free(&a.body);
        if (!retryable(rc, status) || a.too_big || attempt == l->cfg.retries) {
            l->down = 1;
            return gd_errf(err, GD_EENV, "agents: %s after %d attempt(s): %s",
                           url, attempt + 1, why);
        }
        wait_s(ra >= 0 ? ra : l->cfg.backoff_s * (double)(1 << attempt));
    }
    return gd_errf(err, GD_EENV, "agents: no attempt made");
}

/* ---- cache ----------------------------------------------------------------- */

static void cache_path(const agents_llm *l, const char *url, const char *body,
                       char *out, size_t n)
{
    util_buf b;
    util_buf_init(&b);
    util_buf_printf(&b, "%s\n%s\n", l->cfg.provider, url);
    util_buf_puts(&b, body);
    char hex[65], name[80];
    util_sha256_hex(b.s, b.len, hex);
    util_buf_free(&b);
    snprintf(name, sizeof name, "%s.json", hex);
    if (util_path_join(out, n, l->cache_dir, name) != GD_OK)
        out[0] = 0;
}

static char *cache_read(const char *path)
{
    char *data = NULL;
    size_t len;
    gd_err e;
    if (!path[0] || !util_path_exists(path)
        || util_read_file(path, &data, &len, &e) != GD_OK)
        return NULL;
    cJSON *root = cJSON_Parse(data);
    free(data);
    cJSON *t = cJSON_GetObjectItemCaseSensitive(root, "text");
    char *text = cJSON_IsString(t) ? strdup(t->valuestring) : NULL;
    cJSON_Delete(root);
    return text;
}

static int cache_write(const agents_llm *l, const char *path, const char *url,
                       const char *body, const char *answer, const char *text,
                       gd_err *err)
{
    if (!path[0])
        return GD_OK;
    int rc = util_mkdirs(l->cache_dir, err);
    if (rc)
        return rc;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "provider", l->cfg.provider);
    cJSON_AddStringToObject(root, "url", url);
    cJSON *req = cJSON_Parse(body);
    cJSON_AddItemToObject(root, "request", req ? req : cJSON_CreateNull());
    cJSON_AddStringToObject(root, "response", answer);
    cJSON_AddStringToObject(root, "text", text);
    char *s = cJSON_Print(root);
    cJSON_Delete(root);
    char *red = agents_redact(s, the_key(l));
    free(s);
    rc = util_write_file_atomic(path, red, strlen(red), err);
    free(red);
    return rc;
}

char *agents_llm_redact(const agents_llm *l, const char *s)
{
    return agents_redact(s, the_key(l));
}

int agents_llm_ask(agents_llm *l, const char *system, const char *user,
                   char **reply, int *cached, gd_err *err)
{
    char url[1024], path[4200];
    *reply = NULL;
    *cached = 0;
    request_url(l, url, sizeof url);
    char *body = request_body(l, system, user);
    cache_path(l, url, body, path, sizeof path);
    char *hit = cache_read(path);
    if (hit) {
        free(body);
        *reply = hit;
        *cached = 1;
        return GD_OK;
    }
    int rc;
    char *answer = NULL, *text = NULL;
    if (l->down)
        rc = gd_errf(err, GD_EENV, "agents: provider %s is unavailable "
                     "(an earlier request failed)", l->cfg.provider);
    else if (is_anthropic(l) && !the_key(l)) {
        l->down = 1;
        rc = gd_errf(err, GD_EENV, "agents: environment variable %s holding "
                     "the API key is not set", key_env(l));
    } else
        rc = post(l, url, body, &answer, err);
    if (rc == GD_OK) {
        char *raw = answer_text(l, answer);
        text = raw ? agents_redact(raw, the_key(l)) : NULL;
        free(raw);
        if (!text) {
            util_buf b = {answer, strlen(answer), 0};
            char ex[160];
            body_excerpt(l, &b, ex, sizeof ex);
            if (++l->bad_answers >= 3)
                l->down = 1;
            rc = gd_errf(err, GD_EINPUT, "agents: %s: malformed answer "
                         "(no text): %s", url, ex);
        } else {
            l->bad_answers = 0;
            rc = cache_write(l, path, url, body, answer, text, err);
        }
    }
    free(answer);
    free(body);
    if (rc != GD_OK) {
        free(text);
        return rc;
    }
    *reply = text;
    return GD_OK;
}

/*
 * TEST DOUBLE — not vllm.cpp. A stand-in for libvllm that implements the same
 * C ABI (version 5) with scripted outputs, so the binding's own mechanics
 * (streaming order, cancellation, concurrency, errors, engine death, close,
 * worker termination, chat chunks) are tested without the real library.
 *
 * The "model" is a directory holding fake-script.txt: rules tried in order,
 * the first whose `match` text occurs in the prompt (for the chat entry
 * point: in the whole request JSON) wins.
 *
 *   rule
 *   match <text>          optional; default: matches everything
 *   output <text>         escapes \n \t \\ ; the generated text
 *   output-prompt         generate the prompt itself
 *   output-request        generate the raw request (chat JSON, or a dump of the sampling params);
 *                         stop strings are not applied to it
 *   chunk <n>             code points per delta (default 3)
 *   delay_ms <n>          sleep before each delta (default 0)
 *   finish <reason>       finish reason when the output runs out (default stop)
 *   fail <message>        the request fails with VLLM_ERR_RUNTIME
 *   kill                  the engine dies: this and every later request fails
 *   end
 *
 * A "token" is one code point: max_tokens cuts the output (finish "length"),
 * prompt_tokens counts the prompt's code points. Like the
 * real library observed through dlopen: deltas are coalesced, a cancelled or
 * stopped request gets no finished==true callback, and a regex containing
 * lookaround or a named group kills the engine.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define API __attribute__((visibility("default")))

/* the ABI's layouts, as the binding declares them */
#include "../../../native/engine/vllm_abi.h"

typedef nvc_vllm_model_params model_params;
typedef nvc_vllm_sampling_params sampling_params;
typedef nvc_vllm_completion completion;
typedef nvc_vllm_token_cb token_cb;

enum { OK = NVC_VLLM_OK, ERR_ARG = NVC_VLLM_ERR_INVALID_ARGUMENT, ERR_LOAD = NVC_VLLM_ERR_MODEL_LOAD, ERR_RUNTIME = NVC_VLLM_ERR_RUNTIME };


typedef struct rule {
  char* match;
  char* output;
  int mode; /* 0 text, 1 prompt, 2 request */
  int chunk, delay_ms;
  char finish[16];
  char* fail;
  int kill;
} rule;

typedef struct engine {
  rule* rules;
  int n_rules;
  volatile int dead;
  pthread_mutex_t mu;
} engine;

typedef struct request {
  engine* e;
  char* prompt;
  char* request_text;
  sampling_params sp;
  char** stop;
  int n_stop;
  char** choice;
  int n_choice;
  token_cb cb;
  void* user;
  pthread_t thread;
  volatile int cancelled, done;
  int status;
  char error[256];
} request;

static __thread char g_last_error[512];
static void set_error(const char* m) { snprintf(g_last_error, sizeof g_last_error, "%s", m); }

static char* dup_str(const char* s) {
  size_t n = strlen(s);
  char* o = malloc(n + 1);
  memcpy(o, s, n + 1);
  return o;
}

static char* unescape(const char* s) {
  char* o = malloc(strlen(s) + 1);
  size_t j = 0;
  for (size_t i = 0; s[i]; i++) {
    if (s[i] == '\\' && s[i + 1]) {
      i++;
      o[j++] = s[i] == 'n' ? '\n' : s[i] == 't' ? '\t' : s[i];
    } else {
      o[j++] = s[i];
    }
  }
  o[j] = 0;
  return o;
}

static int load_script(engine* e, const char* dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/fake-script.txt", dir);
  FILE* f = fopen(path, "rb");
  if (!f) return -1;
  char* line = NULL;
  size_t cap = 0;
  ssize_t n;
  rule* cur = NULL;
  while ((n = getline(&line, &cap, f)) >= 0) {
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = 0;
    if (strcmp(line, "rule") == 0) {
      e->rules = realloc(e->rules, sizeof(rule) * (size_t)(e->n_rules + 1));
      cur = &e->rules[e->n_rules++];
      memset(cur, 0, sizeof *cur);
      cur->chunk = 3;
      strcpy(cur->finish, "stop");
    } else if (!cur || strcmp(line, "end") == 0) {
      continue;
    } else if (strncmp(line, "match ", 6) == 0) {
      cur->match = unescape(line + 6);
    } else if (strncmp(line, "output ", 7) == 0) {
      cur->output = unescape(line + 7);
    } else if (strcmp(line, "output-prompt") == 0) {
      cur->mode = 1;
    } else if (strcmp(line, "output-request") == 0) {
      cur->mode = 2;
    } else if (strncmp(line, "chunk ", 6) == 0) {
      cur->chunk = atoi(line + 6);
    } else if (strncmp(line, "delay_ms ", 9) == 0) {
      cur->delay_ms = atoi(line + 9);
    } else if (strncmp(line, "finish ", 7) == 0) {
      snprintf(cur->finish, sizeof cur->finish, "%s", line + 7);
    } else if (strncmp(line, "fail ", 5) == 0) {
      cur->fail = unescape(line + 5);
    } else if (strcmp(line, "kill") == 0) {
      cur->kill = 1;
    }
  }
  free(line);
  fclose(f);
  return 0;
}

/* ---- minimal JSON string reading (for the chat request the binding sends) ---- */

static void put_utf8(char** o, unsigned cp) {
  char* p = *o;
  if (cp < 0x80) *p++ = (char)cp;
  else if (cp < 0x800) { *p++ = (char)(0xC0 | (cp >> 6)); *p++ = (char)(0x80 | (cp & 63)); }
  else if (cp < 0x10000) { *p++ = (char)(0xE0 | (cp >> 12)); *p++ = (char)(0x80 | ((cp >> 6) & 63)); *p++ = (char)(0x80 | (cp & 63)); }
  else { *p++ = (char)(0xF0 | (cp >> 18)); *p++ = (char)(0x80 | ((cp >> 12) & 63)); *p++ = (char)(0x80 | ((cp >> 6) & 63)); *p++ = (char)(0x80 | (cp & 63)); }
  *o = p;
}

/* Decodes the JSON string starting at s (just after the opening quote). */
static char* json_string_at(const char* s, const char** end) {
  char* out = malloc(strlen(s) * 4 + 1);
  char* o = out;
  while (*s && *s != '"') {
    if (*s == '\\') {
      s++;
      char c = *s++;
      if (c == 'n') *o++ = '\n';
      else if (c == 't') *o++ = '\t';
      else if (c == 'r') *o++ = '\r';
      else if (c == 'b') *o++ = '\b';
      else if (c == 'f') *o++ = '\f';
      else if (c == 'u') {
        unsigned cp = (unsigned)strtoul((char[]){s[0], s[1], s[2], s[3], 0}, NULL, 16);
        s += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && s[0] == '\\' && s[1] == 'u') {
          unsigned lo = (unsigned)strtoul((char[]){s[2], s[3], s[4], s[5], 0}, NULL, 16);
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          s += 6;
        }
        put_utf8(&o, cp);
      } else *o++ = c;
    } else {
      *o++ = *s++;
    }
  }
  *o = 0;
  if (end) *end = *s ? s + 1 : s;
  return out;
}

static const char* json_key(const char* json, const char* key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char* p = strstr(json, pat);
  if (!p) return NULL;
  p += strlen(pat);
  while (*p == ' ') p++;
  return p;
}

static char* json_get_string(const char* json, const char* key) {
  const char* p = json_key(json, key);
  if (!p || *p != '"') return NULL;
  return json_string_at(p + 1, NULL);
}

static int json_get_int(const char* json, const char* key, int fallback) {
  const char* p = json_key(json, key);
  if (!p || (*p != '-' && (*p < '0' || *p > '9'))) return fallback;
  return atoi(p);
}

static int json_get_strings(const char* json, const char* key, char*** out) {
  const char* p = json_key(json, key);
  *out = NULL;
  if (!p || *p != '[') return 0;
  int n = 0;
  p++;
  while (*p && *p != ']') {
    if (*p == '"') {
      *out = realloc(*out, sizeof(char*) * (size_t)(n + 1));
      (*out)[n++] = json_string_at(p + 1, &p);
    } else {
      p++;
    }
  }
  return n;
}

static void json_escape(const char* s, char** buf, size_t* len, size_t* cap) {
  for (; *s; s++) {
    char tmp[8];
    const char* piece = tmp;
    unsigned char c = (unsigned char)*s;
    if (c == '"') piece = "\\\"";
    else if (c == '\\') piece = "\\\\";
    else if (c == '\n') piece = "\\n";
    else if (c < 0x20) snprintf(tmp, sizeof tmp, "\\u%04x", c);
    else { tmp[0] = (char)c; tmp[1] = 0; }
    size_t k = strlen(piece);
    if (*len + k + 1 > *cap) { *cap = (*cap + k + 1) * 2; *buf = realloc(*buf, *cap); }
    memcpy(*buf + *len, piece, k);
    *len += k;
    (*buf)[*len] = 0;
  }
}

static void append(char** buf, size_t* len, size_t* cap, const char* s) {
  size_t k = strlen(s);
  if (*len + k + 1 > *cap) { *cap = (*cap + k + 1) * 2; *buf = realloc(*buf, *cap); }
  memcpy(*buf + *len, s, k + 1);
  *len += k;
}

/* ---- generation ---- */

static size_t cp_len(const char* s) {
  size_t n = 0;
  for (; *s; s++) if (((unsigned char)*s & 0xC0) != 0x80) n++;
  return n;
}

/* Byte offset after `n` code points of s. */
static size_t cp_offset(const char* s, size_t n) {
  size_t i = 0;
  while (s[i] && n > 0) {
    i++;
    while (s[i] && ((unsigned char)s[i] & 0xC0) == 0x80) i++;
    n--;
  }
  return i;
}

static rule* pick(engine* e, const char* prompt) {
  for (int i = 0; i < e->n_rules; i++) {
    if (!e->rules[i].match || strstr(prompt, e->rules[i].match)) return &e->rules[i];
  }
  return NULL;
}

static char* params_dump(const sampling_params* p) {
  char* buf = NULL;
  size_t len = 0, cap = 0;
  char tmp[512];
  snprintf(tmp, sizeof tmp,
           "temperature=%g top_p=%g top_k=%d min_p=%g max_tokens=%d seed=%s%llu presence_penalty=%g "
           "frequency_penalty=%g repetition_penalty=%g min_tokens=%d ignore_eos=%d",
           p->temperature, p->top_p, p->top_k, p->min_p, p->max_tokens, p->has_seed ? "" : "none:",
           (unsigned long long)p->seed, p->presence_penalty, p->frequency_penalty, p->repetition_penalty,
           p->min_tokens, p->ignore_eos);
  append(&buf, &len, &cap, tmp);
  append(&buf, &len, &cap, " stop=[");
  for (int i = 0; i < p->n_stop; i++) {
    if (i) append(&buf, &len, &cap, "|");
    append(&buf, &len, &cap, p->stop[i]);
  }
  append(&buf, &len, &cap, "]");
  if (p->structured_json) { append(&buf, &len, &cap, " json="); append(&buf, &len, &cap, p->structured_json); }
  if (p->structured_regex) { append(&buf, &len, &cap, " regex="); append(&buf, &len, &cap, p->structured_regex); }
  if (p->structured_grammar) { append(&buf, &len, &cap, " grammar="); append(&buf, &len, &cap, p->structured_grammar); }
  if (p->structured_json_object) append(&buf, &len, &cap, " json_object=1");
  for (int i = 0; i < p->n_structured_choice; i++) {
    append(&buf, &len, &cap, i ? "|" : " choice=");
    append(&buf, &len, &cap, p->structured_choice[i]);
  }
  return buf;
}

typedef struct {
  char* text;     /* full output after max_tokens and stop */
  char finish[16];
  int status;
  char error[256];
  rule* r;
} plan;

/* Decides what a request generates. */
static void make_plan(engine* e, const char* prompt, const char* request_text, int max_tokens, char** stop,
                      int n_stop, const char* regex, plan* out) {
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&e->mu);
  if (regex && (strstr(regex, "(?=") || strstr(regex, "(?!") || strstr(regex, "(?<") || strstr(regex, "(?P"))) e->dead = 1;
  int dead = e->dead;
  rule* r = dead ? NULL : pick(e, prompt);
  if (r && r->kill) e->dead = 1;
  pthread_mutex_unlock(&e->mu);
  if (dead || (r && r->kill)) {
    out->status = ERR_RUNTIME;
    snprintf(out->error, sizeof out->error, "engine core is dead: a previous request crashed the scheduler");
    return;
  }
  out->r = r;
  if (r && r->fail) {
    out->status = ERR_RUNTIME;
    snprintf(out->error, sizeof out->error, "%s", r->fail);
    return;
  }
  const char* src = !r ? "ok" : r->mode == 1 ? prompt : r->mode == 2 ? request_text : (r->output ? r->output : "");
  out->text = dup_str(src);
  snprintf(out->finish, sizeof out->finish, "%s", r ? r->finish : "stop");
  size_t cut = strlen(out->text);
  for (int i = 0; r && r->mode != 2 && i < n_stop; i++) {
    char* hit = strstr(out->text, stop[i]);
    if (hit && (size_t)(hit - out->text) < cut) {
      cut = (size_t)(hit - out->text);
      snprintf(out->finish, sizeof out->finish, "stop");
    }
  }
  out->text[cut] = 0;
  if (max_tokens > 0 && cp_len(out->text) > (size_t)max_tokens) {
    out->text[cp_offset(out->text, (size_t)max_tokens)] = 0;
    snprintf(out->finish, sizeof out->finish, "length");
  }
}

static void sleep_ms(int ms) {
  if (ms <= 0) return;
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Streams plan->text in chunks; returns 1 if the consumer stopped early. */
static int stream_plan(plan* p, volatile int* cancelled, token_cb cb, void* user, int as_chat, const char* usage_json) {
  int chunk = p->r && p->r->chunk > 0 ? p->r->chunk : 3;
  int delay = p->r ? p->r->delay_ms : 0;
  const char* s = p->text;
  char* buf = NULL;
  size_t len = 0, cap = 0;
  if (as_chat) {
    if (!cb("{\"id\":\"chatcmpl-fake\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}", false, user)) return 1;
  }
  while (*s) {
    sleep_ms(delay);
    if (cancelled && *cancelled) { free(buf); return 1; }
    size_t k = cp_offset(s, (size_t)chunk);
    char piece[4096];
    size_t m = k < sizeof piece - 1 ? k : sizeof piece - 1;
    memcpy(piece, s, m);
    piece[m] = 0;
    s += m;
    bool keep;
    if (as_chat) {
      len = 0;
      append(&buf, &len, &cap, "{\"id\":\"chatcmpl-fake\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"");
      json_escape(piece, &buf, &len, &cap);
      append(&buf, &len, &cap, "\"},\"finish_reason\":null}]}");
      keep = cb(buf, false, user);
    } else {
      keep = cb(piece, false, user);
    }
    if (!keep) { free(buf); return 1; }
  }
  if (as_chat) {
    len = 0;
    append(&buf, &len, &cap, "{\"id\":\"chatcmpl-fake\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"");
    append(&buf, &len, &cap, p->finish);
    append(&buf, &len, &cap, "\"}]}");
    if (!cb(buf, false, user)) { free(buf); return 1; }
    if (usage_json) {
      len = 0;
      append(&buf, &len, &cap, "{\"id\":\"chatcmpl-fake\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":");
      append(&buf, &len, &cap, usage_json);
      append(&buf, &len, &cap, "}");
      if (!cb(buf, false, user)) { free(buf); return 1; }
    }
  }
  free(buf);
  cb("", true, user);
  return 0;
}

/* ---- the ABI ---- */

API int32_t vllm_abi_version(void) { return 5; }
API const char* vllm_version(void) { return "0.0.0-fake-libvllm"; }
API const char* vllm_last_error(void) { return g_last_error; }
API void vllm_string_free(char* s) { free(s); }
API void vllm_completion_free(completion* c) {
  if (!c) return;
  free(c->text);
  memset(c, 0, sizeof *c);
}

API model_params vllm_model_params_default(void) {
  model_params p;
  memset(&p, 0, sizeof p);
  p.block_size = 32;
  p.num_blocks = 256;
  p.max_num_seqs = 8;
  return p;
}

API sampling_params vllm_sampling_params_default(void) {
  sampling_params p;
  memset(&p, 0, sizeof p);
  p.temperature = 1.0f;
  p.top_p = 1.0f;
  p.max_tokens = 16;
  p.repetition_penalty = 1.0f;
  return p;
}

API int32_t vllm_engine_load(const model_params* p, engine** out) {
  if (!out) { set_error("vllm_engine_load: out handle pointer is null"); return ERR_ARG; }
  *out = NULL;
  if (!p || !p->model_path) { set_error("vllm_engine_load: params or params->model_path is null"); return ERR_ARG; }
  engine* e = calloc(1, sizeof *e);
  pthread_mutex_init(&e->mu, NULL);
  if (load_script(e, p->model_path) != 0) {
    free(e);
    char m[512];
    snprintf(m, sizeof m, "vllm_engine_load: no fake-script.txt in %s", p->model_path);
    set_error(m);
    return ERR_LOAD;
  }
  *out = e;
  return OK;
}

API void vllm_engine_free(engine* e) {
  if (!e) return;
  for (int i = 0; i < e->n_rules; i++) {
    free(e->rules[i].match);
    free(e->rules[i].output);
    free(e->rules[i].fail);
  }
  free(e->rules);
  pthread_mutex_destroy(&e->mu);
  free(e);
}

API int32_t vllm_complete(engine* e, const char* prompt, const sampling_params* sp, completion* out) {
  if (!out) { set_error("vllm_complete: out is null"); return ERR_ARG; }
  memset(out, 0, sizeof *out);
  if (!e || !prompt || !sp) { set_error("vllm_complete: engine, prompt or params is null"); return ERR_ARG; }
  char* dump = params_dump(sp);
  plan p;
  make_plan(e, prompt, dump, sp->max_tokens, (char**)sp->stop, sp->n_stop, sp->structured_regex, &p);
  free(dump);
  if (p.status != OK) { set_error(p.error); return p.status; }
  if (p.r) sleep_ms(p.r->delay_ms * (int)(cp_len(p.text) / (size_t)(p.r->chunk > 0 ? p.r->chunk : 3) + 1));
  out->text = p.text;
  out->finish_reason = strcmp(p.finish, "length") == 0 ? "length" : strcmp(p.finish, "error") == 0 ? "error" : "stop";
  out->prompt_tokens = (int32_t)cp_len(prompt);
  out->completion_tokens = (int32_t)cp_len(p.text);
  return OK;
}

API int32_t vllm_complete_stream(engine* e, const char* prompt, const sampling_params* sp, token_cb cb, void* user) {
  if (!e || !prompt || !sp || !cb) { set_error("vllm_complete_stream: null argument"); return ERR_ARG; }
  char* dump = params_dump(sp);
  plan p;
  make_plan(e, prompt, dump, sp->max_tokens, (char**)sp->stop, sp->n_stop, sp->structured_regex, &p);
  free(dump);
  if (p.status != OK) { set_error(p.error); return p.status; }
  stream_plan(&p, NULL, cb, user, 0, NULL);
  free(p.text);
  return OK;
}

static void* deliver(void* arg) {
  request* r = arg;
  char* dump = params_dump(&r->sp);
  plan p;
  make_plan(r->e, r->prompt, dump, r->sp.max_tokens, r->stop, r->n_stop, r->sp.structured_regex, &p);
  free(dump);
  if (p.status != OK) {
    r->status = p.status;
    snprintf(r->error, sizeof r->error, "%s", p.error);
  } else {
    stream_plan(&p, &r->cancelled, r->cb, r->user, 0, NULL);
    free(p.text);
    r->status = OK;
  }
  r->done = 1;
  return NULL;
}

API int32_t vllm_request_submit(engine* e, const char* prompt, const sampling_params* sp, token_cb cb, void* user,
                                request** out) {
  if (!out) { set_error("vllm_request_submit: out is null"); return ERR_ARG; }
  *out = NULL;
  if (!e || !prompt || !sp || !cb) { set_error("vllm_request_submit: null argument"); return ERR_ARG; }
  if (e->dead) { set_error("vllm_request_submit: engine core is dead"); return ERR_RUNTIME; }
  request* r = calloc(1, sizeof *r);
  r->e = e;
  r->prompt = dup_str(prompt);
  r->sp = *sp;
  r->n_stop = sp->n_stop;
  r->stop = calloc((size_t)(sp->n_stop + 1), sizeof(char*));
  for (int i = 0; i < sp->n_stop; i++) r->stop[i] = dup_str(sp->stop[i]);
  r->sp.stop = (const char* const*)r->stop;
  r->sp.structured_regex = sp->structured_regex ? dup_str(sp->structured_regex) : NULL;
  r->sp.structured_json = sp->structured_json ? dup_str(sp->structured_json) : NULL;
  r->sp.structured_grammar = sp->structured_grammar ? dup_str(sp->structured_grammar) : NULL;
  r->n_choice = sp->n_structured_choice;
  r->choice = calloc((size_t)(sp->n_structured_choice + 1), sizeof(char*));
  for (int i = 0; i < sp->n_structured_choice; i++) r->choice[i] = dup_str(sp->structured_choice[i]);
  r->sp.structured_choice = (const char* const*)r->choice;
  r->cb = cb;
  r->user = user;
  pthread_create(&r->thread, NULL, deliver, r);
  *out = r;
  return OK;
}

API int32_t vllm_request_cancel(request* r) {
  if (!r) { set_error("vllm_request_cancel: request is null"); return ERR_ARG; }
  r->cancelled = 1;
  return OK;
}

API int32_t vllm_request_wait(request* r) {
  if (!r) { set_error("vllm_request_wait: request is null"); return ERR_ARG; }
  if (r->thread) {
    pthread_join(r->thread, NULL);
    r->thread = 0;
  }
  if (r->status != OK) {
    char m[300];
    snprintf(m, sizeof m, "vllm_request_wait: %s", r->error);
    set_error(m);
  }
  return r->status;
}

API bool vllm_request_done(const request* r) { return r && r->done; }
API const char* vllm_request_error(const request* r) { return r && r->done ? r->error : ""; }

API void vllm_request_free(request* r) {
  if (!r) return;
  r->cancelled = 1;
  if (r->thread) pthread_join(r->thread, NULL);
  for (int i = 0; i < r->n_stop; i++) free(r->stop[i]);
  free(r->stop);
  for (int i = 0; i < r->n_choice; i++) free(r->choice[i]);
  free(r->choice);
  free((char*)r->sp.structured_regex);
  free((char*)r->sp.structured_json);
  free((char*)r->sp.structured_grammar);
  free(r->prompt);
  free(r);
}

API int32_t vllm_chat(engine* e, const char* request_json, char** out) {
  (void)e;
  (void)request_json;
  if (out) *out = NULL;
  set_error("vllm_chat: not provided by the test double");
  return ERR_ARG;
}

API int32_t vllm_chat_stream(engine* e, const char* request_json, token_cb cb, void* user) {
  if (!e || !request_json || !cb) { set_error("vllm_chat_stream: engine or request_json is null"); return ERR_ARG; }
  char* prompt = json_get_string(request_json, "content");
  if (!prompt || request_json[0] != '{') {
    free(prompt);
    set_error("vllm_chat_stream: invalid chat request: no messages[0].content");
    return ERR_ARG;
  }
  int max_tokens = json_get_int(request_json, "max_tokens", 0);
  char** stop = NULL;
  int n_stop = json_get_strings(request_json, "stop", &stop);
  plan p;
  /* rules match against the whole request (prompt included) on this path */
  make_plan(e, request_json, request_json, max_tokens, stop, n_stop, NULL, &p);
  if (p.status == OK && p.r && p.r->mode == 1) {
    free(p.text);
    p.text = dup_str(prompt);
  }
  for (int i = 0; i < n_stop; i++) free(stop[i]);
  free(stop);
  if (p.status != OK) {
    free(prompt);
    set_error(p.error);
    return p.status;
  }
  char usage[160];
  int pt = (int)cp_len(prompt), ct = (int)cp_len(p.text);
  snprintf(usage, sizeof usage, "{\"prompt_tokens\":%d,\"total_tokens\":%d,\"completion_tokens\":%d}", pt, pt + ct, ct);
  const char* opts = json_key(request_json, "include_usage");
  int include_usage = opts && strncmp(opts, "true", 4) == 0;
  stream_plan(&p, NULL, cb, user, 1, include_usage ? usage : NULL);
  free(p.text);
  free(prompt);
  return OK;
}

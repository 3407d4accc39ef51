/*
 * vllm-driver: drives vllm.cpp's libvllm directly through its C ABI (v5),
 * loaded at run time with dlopen, and prints one JSON object. It is the
 * baseline the Node engine bridge is measured against, and a probe for the
 * library's observable behaviour (finish reasons, token counts, callbacks).
 *
 * Build:  cc -O2 -o /tmp/vllm-driver native/tools/vllm-driver.c -ldl
 *         (add -lpthread on old glibc)
 * Run:    vllm-driver --lib /path/to/libvllm.so --model DIR [options]
 *
 * The ABI types come from native/engine/vllm_abi.h, our declaration of the
 * layouts libvllm documents for ABI version 5; nothing from vllm.cpp is
 * needed to build it.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- ABI v5 declarations ------------------------------------------------ */

#include "../engine/vllm_abi.h"

enum { DRV_ABI_VERSION = NVC_VLLM_ABI_VERSION, DRV_OK = NVC_VLLM_OK };

typedef struct drv_engine drv_engine;
typedef struct drv_request drv_request;
typedef nvc_vllm_model_params drv_model_params;
typedef nvc_vllm_sampling_params drv_sampling_params;
typedef nvc_vllm_completion drv_completion;
typedef nvc_vllm_token_cb drv_token_cb;

typedef drv_model_params (*fn_model_params_default)(void);
typedef drv_sampling_params (*fn_sampling_params_default)(void);
typedef int (*fn_engine_load)(const drv_model_params*, drv_engine**);
typedef void (*fn_engine_free)(drv_engine*);
typedef int (*fn_complete)(drv_engine*, const char*, const drv_sampling_params*,
                           drv_completion*);
typedef int (*fn_complete_stream)(drv_engine*, const char*,
                                  const drv_sampling_params*, drv_token_cb,
                                  void*);
typedef int (*fn_request_submit)(drv_engine*, const char*,
                                 const drv_sampling_params*, drv_token_cb,
                                 void*, drv_request**);
typedef int (*fn_request_op)(drv_request*);
typedef bool (*fn_request_done)(const drv_request*);
typedef const char* (*fn_request_error)(const drv_request*);
typedef void (*fn_request_free)(drv_request*);
typedef void (*fn_completion_free)(drv_completion*);
typedef int (*fn_chat)(drv_engine*, const char*, char**);
typedef int (*fn_chat_stream)(drv_engine*, const char*, drv_token_cb, void*);
typedef void (*fn_string_free)(char*);
typedef const char* (*fn_cstr)(void);
typedef int32_t (*fn_abi_version)(void);

static struct {
  fn_model_params_default model_params_default;
  fn_sampling_params_default sampling_params_default;
  fn_engine_load engine_load;
  fn_engine_free engine_free;
  fn_complete complete;
  fn_complete_stream complete_stream;
  fn_request_submit request_submit;
  fn_request_op request_cancel;
  fn_request_op request_wait;
  fn_request_done request_done;
  fn_request_error request_error;
  fn_request_free request_free;
  fn_completion_free completion_free;
  fn_chat chat;
  fn_chat_stream chat_stream;
  fn_string_free string_free;
  fn_cstr last_error;
  fn_cstr version;
  fn_abi_version abi_version;
} api;

/* ---- small helpers ------------------------------------------------------ */

static void die(const char* fmt, const char* arg) {
  fprintf(stderr, "vllm-driver: ");
  fprintf(stderr, fmt, arg ? arg : "");
  fputc('\n', stderr);
  exit(2);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

typedef struct {
  char* data;
  size_t len, cap;
} buf_t;

static void buf_add(buf_t* b, const char* s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1) cap *= 2;
    char* p = realloc(b->data, cap);
    if (!p) die("out of memory%s", NULL);
    b->data = p;
    b->cap = cap;
  }
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

/* JSON string literal; the input is UTF-8 and passes through except for the
 * characters JSON requires escaped. */
static void put_json_str(FILE* f, const char* s, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
      case '"': fputs("\\\"", f); break;
      case '\\': fputs("\\\\", f); break;
      case '\n': fputs("\\n", f); break;
      case '\r': fputs("\\r", f); break;
      case '\t': fputs("\\t", f); break;
      default:
        if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
  }
  fputc('"', f);
}

static void put_json_cstr(FILE* f, const char* s) {
  if (s) put_json_str(f, s, strlen(s));
  else fputs("null", f);
}

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) die("cannot open %s", path);
  buf_t b = {0};
  char tmp[65536];
  size_t n;
  while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) buf_add(&b, tmp, n);
  fclose(f);
  if (!b.data) buf_add(&b, "", 0);
  return b.data;
}

static void* sym(void* lib, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) die("libvllm lacks symbol %s", name);
  return p;
}

/* ---- streaming callbacks ------------------------------------------------ */

typedef struct {
  buf_t text;
  atomic_int deltas;        /* non-final callbacks */
  atomic_int finished_seen; /* callbacks with finished == true */
  int stop_after;           /* return false after this many deltas (0: never) */
} stream_state;

static bool on_delta(const char* delta, bool finished, void* user) {
  stream_state* st = user;
  if (delta && *delta) buf_add(&st->text, delta, strlen(delta));
  if (finished) {
    atomic_fetch_add(&st->finished_seen, 1);
    return true;
  }
  int n = atomic_fetch_add(&st->deltas, 1) + 1;
  return !(st->stop_after > 0 && n >= st->stop_after);
}

/* chat-stream: each non-empty callback text is one chunk JSON object. */
typedef struct {
  char** items;
  size_t n, cap;
  int finished;
} chunk_list;

static bool on_chunk(const char* delta, bool finished, void* user) {
  chunk_list* cl = user;
  if (finished) cl->finished++;
  if (!delta || !*delta) return true;
  if (cl->n == cl->cap) {
    size_t cap = cl->cap ? cl->cap * 2 : 16;
    char** p = realloc(cl->items, cap * sizeof *p);
    if (!p) die("out of memory%s", NULL);
    cl->items = p;
    cl->cap = cap;
  }
  cl->items[cl->n] = strdup(delta);
  if (!cl->items[cl->n]) die("out of memory%s", NULL);
  cl->n++;
  return true;
}

/* The fields cancel-pair reports for one finished request. */
static void put_request_fields(const drv_request* r, stream_state* st) {
  printf("\"done\":%s,\"deltas\":%d,\"finished_callbacks\":%d,\"request_error\":",
         api.request_done(r) ? "true" : "false", atomic_load(&st->deltas),
         atomic_load(&st->finished_seen));
  put_json_cstr(stdout, api.request_error(r));
  printf(",\"text_bytes\":%zu", st->text.len);
}

/* ---- options ------------------------------------------------------------ */

#define MAX_STOP 16

static void usage(void) {
  fputs(
      "usage: vllm-driver --lib LIBVLLM --model DIR [options]\n"
      "  --prompt TEXT | --prompt-file FILE   prompt text (default \"Hello\")\n"
      "  --request FILE      chat / chat-stream: the OpenAI request JSON\n"
      "  --tokens N          max_tokens (default 256)\n"
      "  --api stream|submit|complete|cancel-pair\n"
      "                      stream: vllm_complete_stream (default);\n"
      "                      submit: vllm_request_submit + vllm_request_wait;\n"
      "                      complete: vllm_complete (reports token counts and\n"
      "                      finish reason); cancel-pair: two concurrent\n"
      "                      submits, the second cancelled after its first delta;\n"
      "                      chat / chat-stream: vllm_chat / vllm_chat_stream with\n"
      "                      --request (prints the response / the chunks)\n"
      "  --repeat R          timed runs (median reported; default 1)\n"
      "  --warmup W          untimed runs first (default 1)\n"
      "  --temperature T     default 0 (greedy)\n"
      "  --seed S            seeded sampling\n"
      "  --eos               stop at EOS (default: ignore_eos)\n"
      "  --stop STR          stop string (repeatable)\n"
      "  --regex RE          structured_regex constraint\n"
      "  --stop-after K      stream/submit: return false after K deltas\n"
      "  --concurrent K      submit: K identical requests at once (tokens and\n"
      "                      tokens_per_s are totals; distinct_texts compares them)\n"
      "  --probe-after       then run one plain 4-token completion and report\n"
      "                      whether the engine still serves (probe_status)\n"
      "  --threads N         set VLLM_CPP_CPU_THREADS=N before loading\n"
      "  --max-model-len N, --num-blocks N, --block-size N, --max-num-seqs N\n"
      "Prints one JSON object: tokens, seconds, tokens_per_s, text, ...\n",
      stderr);
  exit(2);
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  const char* lib_path = getenv("VLLM_CPP_LIB");
  const char* model = NULL;
  const char* prompt = "Hello";
  const char* api_name = "stream";
  const char* regex = NULL;
  char* request_json = NULL;
  const char* stops[MAX_STOP];
  int n_stop = 0, tokens = 256, repeat = 1, warmup = 1, stop_after = 0;
  int concurrent = 1, probe_after = 0;
  int ignore_eos = 1, has_seed = 0, max_model_len = 0, num_blocks = 0;
  int block_size = 0, max_num_seqs = 0;
  float temperature = 0.0f;
  unsigned long long seed = 0;
  char* prompt_owned = NULL;

  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
#define NEXT() (i + 1 < argc ? argv[++i] : (usage(), ""))
    if (!strcmp(a, "--lib")) lib_path = NEXT();
    else if (!strcmp(a, "--model")) model = NEXT();
    else if (!strcmp(a, "--prompt")) prompt = NEXT();
    else if (!strcmp(a, "--prompt-file")) prompt = prompt_owned = read_file(NEXT());
    else if (!strcmp(a, "--tokens")) tokens = atoi(NEXT());
    else if (!strcmp(a, "--request")) request_json = read_file(NEXT());
    else if (!strcmp(a, "--api")) api_name = NEXT();
    else if (!strcmp(a, "--repeat")) repeat = atoi(NEXT());
    else if (!strcmp(a, "--warmup")) warmup = atoi(NEXT());
    else if (!strcmp(a, "--temperature")) temperature = (float)atof(NEXT());
    else if (!strcmp(a, "--seed")) { seed = strtoull(NEXT(), NULL, 10); has_seed = 1; }
    else if (!strcmp(a, "--eos")) ignore_eos = 0;
    else if (!strcmp(a, "--stop")) {
      if (n_stop == MAX_STOP) die("too many --stop%s", NULL);
      stops[n_stop++] = NEXT();
    } else if (!strcmp(a, "--regex")) regex = NEXT();
    else if (!strcmp(a, "--stop-after")) stop_after = atoi(NEXT());
    else if (!strcmp(a, "--concurrent")) concurrent = atoi(NEXT());
    else if (!strcmp(a, "--probe-after")) probe_after = 1;
    else if (!strcmp(a, "--threads")) setenv("VLLM_CPP_CPU_THREADS", NEXT(), 1);
    else if (!strcmp(a, "--max-model-len")) max_model_len = atoi(NEXT());
    else if (!strcmp(a, "--num-blocks")) num_blocks = atoi(NEXT());
    else if (!strcmp(a, "--block-size")) block_size = atoi(NEXT());
    else if (!strcmp(a, "--max-num-seqs")) max_num_seqs = atoi(NEXT());
    else usage();
#undef NEXT
  }
  if (!lib_path || !model) usage();
  if (repeat < 1) repeat = 1;
  if (warmup < 0) warmup = 0;
  if (concurrent < 1) concurrent = 1;
  enum { API_STREAM, API_SUBMIT, API_COMPLETE, API_CANCEL_PAIR, API_CHAT, API_CHAT_STREAM } mode;
  if (!strcmp(api_name, "stream")) mode = API_STREAM;
  else if (!strcmp(api_name, "submit")) mode = API_SUBMIT;
  else if (!strcmp(api_name, "complete")) mode = API_COMPLETE;
  else if (!strcmp(api_name, "cancel-pair")) mode = API_CANCEL_PAIR;
  else if (!strcmp(api_name, "chat")) mode = API_CHAT;
  else if (!strcmp(api_name, "chat-stream")) mode = API_CHAT_STREAM;
  else usage();
  if (concurrent > 1 && mode != API_SUBMIT) die("--concurrent needs --api submit%s", NULL);
  if ((mode == API_CHAT || mode == API_CHAT_STREAM) != (request_json != NULL))
    die("--request goes with --api chat or chat-stream%s", NULL);

  void* lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) die("dlopen failed: %s", dlerror());
  api.abi_version = (fn_abi_version)sym(lib, "vllm_abi_version");
  int32_t abi = api.abi_version();
  if (abi != DRV_ABI_VERSION) {
    fprintf(stderr, "vllm-driver: libvllm ABI %d, this driver speaks %d\n", (int)abi,
            DRV_ABI_VERSION);
    return 2;
  }
  api.model_params_default = (fn_model_params_default)sym(lib, "vllm_model_params_default");
  api.sampling_params_default =
      (fn_sampling_params_default)sym(lib, "vllm_sampling_params_default");
  api.engine_load = (fn_engine_load)sym(lib, "vllm_engine_load");
  api.engine_free = (fn_engine_free)sym(lib, "vllm_engine_free");
  api.complete = (fn_complete)sym(lib, "vllm_complete");
  api.complete_stream = (fn_complete_stream)sym(lib, "vllm_complete_stream");
  api.request_submit = (fn_request_submit)sym(lib, "vllm_request_submit");
  api.request_cancel = (fn_request_op)sym(lib, "vllm_request_cancel");
  api.request_wait = (fn_request_op)sym(lib, "vllm_request_wait");
  api.request_done = (fn_request_done)sym(lib, "vllm_request_done");
  api.request_error = (fn_request_error)sym(lib, "vllm_request_error");
  api.request_free = (fn_request_free)sym(lib, "vllm_request_free");
  api.completion_free = (fn_completion_free)sym(lib, "vllm_completion_free");
  api.last_error = (fn_cstr)sym(lib, "vllm_last_error");
  api.chat = (fn_chat)sym(lib, "vllm_chat");
  api.chat_stream = (fn_chat_stream)sym(lib, "vllm_chat_stream");
  api.string_free = (fn_string_free)sym(lib, "vllm_string_free");
  api.version = (fn_cstr)sym(lib, "vllm_version");

  drv_model_params mp = api.model_params_default();
  mp.model_path = model;
  if (max_model_len > 0) mp.max_model_len = max_model_len;
  if (num_blocks > 0) mp.num_blocks = num_blocks;
  if (block_size > 0) mp.block_size = block_size;
  if (max_num_seqs > 0) mp.max_num_seqs = max_num_seqs;
  drv_engine* engine = NULL;
  double t0 = now_s();
  int st = api.engine_load(&mp, &engine);
  double load_s = now_s() - t0;
  if (st != DRV_OK || !engine) {
    fprintf(stderr, "vllm-driver: vllm_engine_load failed (%d): %s\n", st, api.last_error());
    return 1;
  }

  drv_sampling_params sp = api.sampling_params_default();
  sp.temperature = temperature;
  sp.top_p = 1.0f;
  sp.top_k = 0;
  sp.min_p = 0.0f;
  sp.max_tokens = tokens;
  sp.seed = seed;
  sp.has_seed = has_seed;
  sp.ignore_eos = ignore_eos;
  sp.stop = n_stop ? stops : NULL;
  sp.n_stop = n_stop;
  sp.structured_regex = regex;

  double* times = calloc((size_t)repeat, sizeof(double));
  stream_state last = {0};
  drv_completion comp = {0};
  int status = DRV_OK;
  char* err = NULL;
  int distinct_texts = 1;
  stream_state* ss = calloc((size_t)concurrent, sizeof(stream_state));
  drv_request** rs = calloc((size_t)concurrent, sizeof(drv_request*));
  if (!times || !ss || !rs) die("out of memory%s", NULL);

  if (mode == API_CHAT || mode == API_CHAT_STREAM) {
    /* The library's own chat path; its response / chunks are JSON objects and
     * are embedded as they are. */
    chunk_list chunks = {0};
    char* response = NULL;
    int cs = DRV_OK;
    for (int run = -warmup; run < repeat && cs == DRV_OK; ++run) {
      if (response) api.string_free(response);
      response = NULL;
      for (size_t k = 0; k < chunks.n; ++k) free(chunks.items[k]);
      chunks.n = 0;
      chunks.finished = 0;
      t0 = now_s();
      cs = mode == API_CHAT ? api.chat(engine, request_json, &response)
                            : api.chat_stream(engine, request_json, on_chunk, &chunks);
      if (run >= 0) times[run] = now_s() - t0;
    }
    qsort(times, (size_t)repeat, sizeof(double), cmp_double);
    printf("{\"api\":\"%s\",\"status\":%d,\"seconds\":%.6f,\"min_seconds\":%.6f,"
           "\"load_seconds\":%.6f,",
           api_name, cs, times[repeat / 2], times[0], load_s);
    if (cs != DRV_OK) {
      printf("\"error\":");
      put_json_cstr(stdout, api.last_error());
    } else if (mode == API_CHAT) {
      printf("\"response\":%s", response ? response : "null");
    } else {
      printf("\"finished_callbacks\":%d,\"chunks\":[", chunks.finished);
      for (size_t k = 0; k < chunks.n; ++k) printf("%s%s", k ? "," : "", chunks.items[k]);
      printf("]");
    }
    printf("}\n");
    if (response) api.string_free(response);
    for (size_t k = 0; k < chunks.n; ++k) free(chunks.items[k]);
    free(chunks.items);
    free(request_json);
    api.engine_free(engine);
    return cs == DRV_OK ? 0 : 1;
  }

  if (mode == API_CANCEL_PAIR) {
    /* Request A runs to max_tokens; request B is cancelled after its first
     * delta. Both share the engine's scheduler. */
    stream_state a = {0}, b = {0};
    drv_request *ra = NULL, *rb = NULL;
    t0 = now_s();
    int sa = api.request_submit(engine, prompt, &sp, on_delta, &a, &ra);
    int sb = api.request_submit(engine, prompt, &sp, on_delta, &b, &rb);
    if (sa != DRV_OK || sb != DRV_OK) {
      fprintf(stderr, "vllm-driver: submit failed (%d, %d): %s\n", sa, sb, api.last_error());
      return 1;
    }
    for (int spin = 0; atomic_load(&b.deltas) == 0 && !api.request_done(rb) && spin < 20000; ++spin)
      sleep_ms(1);
    int deltas_at_cancel = atomic_load(&b.deltas);
    int sc = api.request_cancel(rb);
    int wb = api.request_wait(rb);
    const char* eb = api.last_error();
    char* eb_copy = strdup(eb ? eb : "");
    int wa = api.request_wait(ra);
    double secs = now_s() - t0;
    printf("{\"api\":\"cancel-pair\",\"seconds\":%.6f,\"load_seconds\":%.6f,", secs, load_s);
    printf("\"a\":{\"wait_status\":%d,", wa);
    put_request_fields(ra, &a);
    printf("},\"b\":{\"cancel_status\":%d,\"deltas_at_cancel\":%d,\"wait_status\":%d,"
           "\"wait_last_error\":",
           sc, deltas_at_cancel, wb);
    put_json_cstr(stdout, eb_copy);
    printf(",");
    put_request_fields(rb, &b);
    printf("}}\n");
    free(eb_copy);
    api.request_free(ra);
    api.request_free(rb);
    api.engine_free(engine);
    return 0;
  }

  for (int run = -warmup; run < repeat; ++run) {
    stream_state s = {0};
    s.stop_after = stop_after;
    if (mode == API_COMPLETE && comp.text) api.completion_free(&comp);
    t0 = now_s();
    if (mode == API_STREAM) {
      status = api.complete_stream(engine, prompt, &sp, on_delta, &s);
    } else if (mode == API_SUBMIT) {
      /* Request 0 reports into `s`; the others into ss[1..]. */
      int submitted = 0;
      for (int k = 0; k < concurrent; ++k) {
        stream_state* target = k == 0 ? &s : &ss[k];
        if (k > 0) {
          free(ss[k].text.data);
          memset(&ss[k], 0, sizeof ss[k]);
          ss[k].stop_after = stop_after;
        }
        status = api.request_submit(engine, prompt, &sp, on_delta, target, &rs[k]);
        if (status != DRV_OK) {
          err = strdup(api.last_error());
          break;
        }
        ++submitted;
      }
      for (int k = 0; k < submitted; ++k) {
        int w = api.request_wait(rs[k]);
        if (w != DRV_OK && status == DRV_OK) {
          status = w;
          err = strdup(api.request_error(rs[k]));
        }
        api.request_free(rs[k]);
      }
      distinct_texts = 1;
      for (int k = 1; k < concurrent && status == DRV_OK; ++k) {
        bool seen = s.text.len == ss[k].text.len &&
                    (s.text.len == 0 || !memcmp(s.text.data, ss[k].text.data, s.text.len));
        for (int j = 1; j < k && !seen; ++j)
          seen = ss[j].text.len == ss[k].text.len &&
                 (ss[k].text.len == 0 || !memcmp(ss[j].text.data, ss[k].text.data, ss[k].text.len));
        if (!seen) ++distinct_texts;
      }
    } else {
      status = api.complete(engine, prompt, &sp, &comp);
    }
    double secs = now_s() - t0;
    if (status != DRV_OK) {
      if (!err) err = strdup(api.last_error());
      free(s.text.data);
      break;
    }
    if (run >= 0) times[run] = secs;
    if (run == repeat - 1) last = s;
    else free(s.text.data);
  }

  /* One plain completion after the main run: does the engine still serve? */
  int probe_status = -1;
  char* probe_error = NULL;
  if (probe_after) {
    drv_sampling_params pp = api.sampling_params_default();
    pp.temperature = 0.0f;
    pp.max_tokens = 4;
    pp.ignore_eos = 1;
    drv_completion pc = {0};
    probe_status = api.complete(engine, "Hello", &pp, &pc);
    probe_error = strdup(probe_status == DRV_OK ? "" : api.last_error());
    if (pc.text) api.completion_free(&pc);
  }

  if (status != DRV_OK) {
    printf("{\"api\":\"%s\",\"status\":%d,\"error\":", api_name, status);
    put_json_cstr(stdout, err);
    if (probe_after) {
      printf(",\"probe_status\":%d,\"probe_error\":", probe_status);
      put_json_cstr(stdout, probe_error);
    }
    printf("}\n");
    api.engine_free(engine);
    return 1;
  }

  qsort(times, (size_t)repeat, sizeof(double), cmp_double);
  double median = repeat % 2 ? times[repeat / 2]
                             : 0.5 * (times[repeat / 2 - 1] + times[repeat / 2]);
  /* With ignore_eos and no stop, early stop or constraint, the streaming
   * entry points generate exactly max_tokens tokens; vllm_complete reports
   * its own count. Otherwise the streaming count is unknown (null). */
  long ntok = -1;
  if (mode == API_COMPLETE) ntok = comp.completion_tokens;
  else if (ignore_eos && !n_stop && !regex && !stop_after) ntok = (long)tokens * concurrent;

  printf("{\"api\":\"%s\",\"library\":", api_name);
  put_json_cstr(stdout, api.version());
  printf(",\"abi\":%d,\"load_seconds\":%.6f,", (int)abi, load_s);
  if (ntok >= 0) printf("\"tokens\":%ld,", ntok);
  else printf("\"tokens\":null,");
  printf("\"seconds\":%.6f,", median);
  if (ntok >= 0 && median > 0) printf("\"tokens_per_s\":%.1f,", (double)ntok / median);
  else printf("\"tokens_per_s\":null,");
  printf("\"runs\":%d,\"min_seconds\":%.6f,\"max_seconds\":%.6f,", repeat, times[0],
         times[repeat - 1]);
  if (concurrent > 1) {
    printf("\"concurrent\":%d,\"distinct_texts\":%d,\"other_texts\":[", concurrent,
           distinct_texts);
    for (int k = 1; k < concurrent; ++k) {
      if (k > 1) printf(",");
      put_json_str(stdout, ss[k].text.data ? ss[k].text.data : "", ss[k].text.len);
    }
    printf("],");
  }
  if (probe_after) {
    printf("\"probe_status\":%d,\"probe_error\":", probe_status);
    put_json_cstr(stdout, probe_error);
    printf(",");
  }
  if (mode == API_COMPLETE) {
    printf("\"prompt_tokens\":%d,\"finish_reason\":", (int)comp.prompt_tokens);
    put_json_cstr(stdout, comp.finish_reason);
    printf(",\"text\":");
    put_json_cstr(stdout, comp.text ? comp.text : "");
  } else {
    printf("\"deltas\":%d,\"finished_callbacks\":%d,\"text\":", atomic_load(&last.deltas),
           atomic_load(&last.finished_seen));
    put_json_str(stdout, last.text.data ? last.text.data : "", last.text.len);
  }
  printf("}\n");

  if (comp.text) api.completion_free(&comp);
  free(last.text.data);
  free(times);
  free(prompt_owned);
  for (int k = 1; k < concurrent; ++k) free(ss[k].text.data);
  free(ss);
  free(rs);
  free(err);
  free(probe_error);
  api.engine_free(engine);
  return 0;
}

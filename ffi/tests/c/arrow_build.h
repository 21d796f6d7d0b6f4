/*
 * Minimal hand-built Arrow C Data Interface arrays and schemas for the C
 * tests of libsluice (no arrow C++ dependency).
 *
 * Every array built here owns malloc'd buffers freed by its release
 * callback, which also bumps a caller-supplied counter so a test can check
 * that the library released a moved-in array exactly once.
 */
#ifndef SLUICE_TEST_ARROW_BUILD_H
#define SLUICE_TEST_ARROW_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sluice.h"

#define TA_MAX_BUFFERS 8

struct ta_private {
  int *release_count;
  int n_children;
  struct ArrowArray **children; /* owned (malloc'd structs + array) */
  int n_buffers;
  void *owned[TA_MAX_BUFFERS];
  const void *ptrs[TA_MAX_BUFFERS];
};

static inline void ta_release(struct ArrowArray *a) {
  struct ta_private *p = (struct ta_private *)a->private_data;
  if (p->release_count) (*p->release_count)++;
  for (int i = 0; i < p->n_buffers; i++) free(p->owned[i]);
  for (int i = 0; i < p->n_children; i++) {
    if (p->children[i]->release) p->children[i]->release(p->children[i]);
    free(p->children[i]);
  }
  free(p->children);
  free(p);
  a->release = NULL;
}

/* Starts an array of `length` rows at `offset` with `n_buffers` buffers. */
static inline struct ta_private *ta_init(struct ArrowArray *a, int64_t length, int64_t offset, int n_buffers,
                                  int *release_count) {
  struct ta_private *p = (struct ta_private *)calloc(1, sizeof *p);
  p->release_count = release_count;
  p->n_buffers = n_buffers;
  memset(a, 0, sizeof *a);
  a->length = length;
  a->offset = offset;
  a->null_count = -1;
  a->n_buffers = n_buffers;
  a->buffers = p->ptrs;
  a->release = ta_release;
  a->private_data = p;
  return p;
}

static inline void ta_set_buffer(struct ta_private *p, int i, void *owned) {
  p->owned[i] = owned;
  p->ptrs[i] = owned;
}

/* An Arrow bitmap (LSB first) of `n` flags: bit i set where flags[i] != 0. */
static inline uint8_t *ta_bits(const int *flags, int n) {
  uint8_t *bits = (uint8_t *)calloc((size_t)(n + 8) / 8, 1);
  for (int i = 0; i < n; i++)
    if (flags[i]) bits[i / 8] |= (uint8_t)(1u << (i % 8));
  return bits;
}

/* Validity bitmap from `vals` (NULL entries are NULL rows); NULL if none. */
static inline uint8_t *ta_validity(const char *const *vals, int n) {
  int any_null = 0;
  for (int i = 0; i < n; i++) any_null |= vals[i] == NULL;
  if (!any_null) return NULL;
  uint8_t *bits = (uint8_t *)calloc((size_t)(n + 8) / 8, 1);
  for (int i = 0; i < n; i++)
    if (vals[i]) bits[i / 8] |= (uint8_t)(1u << (i % 8));
  return bits;
}

/* Utf8 (large == 0) or LargeUtf8 (large == 1) array of the `n` strings
 * `vals` (NULL = NULL row). The first `offset` rows are padding the array
 * is sliced past (offset > 0 makes a sliced array). */
static inline void make_strings(struct ArrowArray *a, const char *const *vals, int n, int64_t offset, int large,
                         int *release_count) {
  int total_rows = n + (int)offset;
  const char **all = (const char **)calloc((size_t)total_rows + 1, sizeof *all);
  for (int i = 0; i < offset; i++) all[i] = "pad";
  for (int i = 0; i < n; i++) all[offset + i] = vals[i];
  size_t bytes = 0;
  for (int i = 0; i < total_rows; i++) bytes += all[i] ? strlen(all[i]) : 0;
  struct ta_private *p = ta_init(a, n, offset, 3, release_count);
  ta_set_buffer(p, 0, ta_validity(all, total_rows));
  size_t w = large ? 8 : 4;
  uint8_t *offs = (uint8_t *)malloc(w * ((size_t)total_rows + 1));
  char *data = (char *)malloc(bytes ? bytes : 1);
  size_t pos = 0;
  for (int i = 0; i <= total_rows; i++) {
    if (large) {
      int64_t o = (int64_t)pos;
      memcpy(offs + 8 * (size_t)i, &o, 8);
    } else {
      int32_t o = (int32_t)pos;
      memcpy(offs + 4 * (size_t)i, &o, 4);
    }
    if (i < total_rows && all[i]) {
      size_t l = strlen(all[i]);
      memcpy(data + pos, all[i], l);
      pos += l;
    }
  }
  ta_set_buffer(p, 1, offs);
  ta_set_buffer(p, 2, data);
  free(all);
}

static inline void make_utf8(struct ArrowArray *a, const char *const *vals, int n, int *release_count) {
  make_strings(a, vals, n, 0, 0, release_count);
}

/* Utf8View array: strings of up to 12 bytes inline, longer ones in one
 * variadic data buffer. */
static inline void make_utf8_view(struct ArrowArray *a, const char *const *vals, int n, int *release_count) {
  if (n < 0) n = 0;
  size_t bytes = 0;
  for (int i = 0; i < n; i++)
    if (vals[i] && strlen(vals[i]) > 12) bytes += strlen(vals[i]);
  struct ta_private *p = ta_init(a, n, 0, 4, release_count);
  ta_set_buffer(p, 0, ta_validity(vals, n));
  uint8_t *views = (uint8_t *)calloc(n > 0 ? (size_t)n : 1u, 16);
  char *data = (char *)malloc(bytes ? bytes : 1);
  int64_t *sizes = (int64_t *)malloc(sizeof(int64_t));
  int32_t pos = 0;
  for (int i = 0; i < n; i++) {
    if (!vals[i]) continue;
    int32_t len = (int32_t)strlen(vals[i]);
    uint8_t *v = views + 16 * (size_t)i;
    memcpy(v, &len, 4);
    if (len <= 12) {
      memcpy(v + 4, vals[i], (size_t)len);
    } else {
      int32_t buf = 0;
      memcpy(v + 4, vals[i], 4);
      memcpy(v + 8, &buf, 4);
      memcpy(v + 12, &pos, 4);
      memcpy(data + pos, vals[i], (size_t)len);
      pos += len;
    }
  }
  *sizes = pos;
  ta_set_buffer(p, 1, views);
  ta_set_buffer(p, 2, data);
  ta_set_buffer(p, 3, sizes);
}

/* Fixed-width array of `n` values of `width` bytes each; `valid` may be
 * NULL (all valid). */
static inline void make_fixed(struct ArrowArray *a, const void *vals, size_t width, const int *valid, int n,
                              int *release_count) {
  struct ta_private *p = ta_init(a, n, 0, 2, release_count);
  if (valid) ta_set_buffer(p, 0, ta_bits(valid, n));
  void *data = malloc(width * ((size_t)n ? (size_t)n : 1));
  if (n) memcpy(data, vals, width * (size_t)n);
  ta_set_buffer(p, 1, data);
}

/* Int32 array; `valid` may be NULL (all valid). */
static inline void make_int32(struct ArrowArray *a, const int32_t *vals, const int *valid, int n, int *release_count) {
  make_fixed(a, vals, sizeof(int32_t), valid, n, release_count);
}

/* Int64 array; `valid` may be NULL (all valid). */
static inline void make_int64(struct ArrowArray *a, const int64_t *vals, const int *valid, int n, int *release_count) {
  make_fixed(a, vals, sizeof(int64_t), valid, n, release_count);
}

/* Boolean array (bit-packed values); `valid` may be NULL (all valid). */
static inline void make_bool(struct ArrowArray *a, const int *vals, const int *valid, int n, int *release_count) {
  struct ta_private *p = ta_init(a, n, 0, 2, release_count);
  if (valid) ta_set_buffer(p, 0, ta_bits(valid, n));
  ta_set_buffer(p, 1, ta_bits(vals, n));
}

/* Row `i` of an Int64 array (offset honoured). */
static inline int64_t int64_value(const struct ArrowArray *a, int64_t i) {
  return ((const int64_t *)a->buffers[1])[i + a->offset];
}

/* Struct array of `length` rows (no NULL rows) over `n` children, which are
 * moved in: `kids[i]` are built arrays, copied into owned heap structs. */
static inline void make_struct(struct ArrowArray *a, struct ArrowArray *kids, int n, int64_t length, int *release_count) {
  struct ta_private *p = ta_init(a, length, 0, 1, release_count);
  p->n_children = n;
  p->children = (struct ArrowArray **)malloc(sizeof(struct ArrowArray *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    p->children[i] = (struct ArrowArray *)malloc(sizeof(struct ArrowArray));
    *p->children[i] = kids[i];
    kids[i].release = NULL;
  }
  a->n_children = n;
  a->children = p->children;
}

/* ---- schemas ---- */

struct ts_private {
  char *format;
  char *name;
  char *metadata;
  struct ArrowSchema **children;
};

static inline void ts_release(struct ArrowSchema *s) {
  struct ts_private *p = (struct ts_private *)s->private_data;
  for (int64_t i = 0; i < s->n_children; i++) {
    if (s->children[i]->release) s->children[i]->release(s->children[i]);
    free(s->children[i]);
  }
  free(p->children);
  free(p->format);
  free(p->name);
  free(p->metadata);
  free(p);
  s->release = NULL;
}

static inline char *dup_str(const char *s) {
  size_t l = strlen(s) + 1;
  char *d = (char *)malloc(l);
  memcpy(d, s, l);
  return d;
}

/* Arrow metadata blob holding one pair flink.type = `flink_type`. */
static inline char *flink_metadata(const char *flink_type) {
  const char *key = "flink.type";
  int32_t n = 1, kl = (int32_t)strlen(key), vl = (int32_t)strlen(flink_type);
  char *m = (char *)malloc(12 + (size_t)kl + (size_t)vl);
  memcpy(m, &n, 4);
  memcpy(m + 4, &kl, 4);
  memcpy(m + 8, key, (size_t)kl);
  memcpy(m + 8 + kl, &vl, 4);
  memcpy(m + 12 + kl, flink_type, (size_t)vl);
  return m;
}

/* A schema of `format` (e.g. "u", "U", "vu", "i", "+s"), nullable, with
 * `flink_type` metadata unless NULL, and `n_children` children (taken). */
static inline void make_schema_with_children(struct ArrowSchema *s, const char *format, const char *name,
                                      const char *flink_type, int64_t n_children,
                                      struct ArrowSchema **children) {
  struct ts_private *p = (struct ts_private *)calloc(1, sizeof *p);
  p->format = dup_str(format);
  p->name = dup_str(name);
  p->metadata = flink_type ? flink_metadata(flink_type) : NULL;
  p->children = children;
  memset(s, 0, sizeof *s);
  s->format = p->format;
  s->name = p->name;
  s->metadata = p->metadata;
  s->flags = ARROW_FLAG_NULLABLE;
  s->n_children = n_children;
  s->children = children;
  s->release = ts_release;
  s->private_data = p;
}

static inline void make_schema(struct ArrowSchema *s, const char *format, const char *flink_type) {
  make_schema_with_children(s, format, "arg", flink_type, 0, NULL);
}

/* Struct schema over `n` fields named `names`, formats `formats`, flink
 * types `flink_types` (entries may be NULL). */
static inline void make_struct_schema(struct ArrowSchema *s, int n, const char *const *names, const char *const *formats,
                               const char *const *flink_types) {
  struct ArrowSchema **children = (struct ArrowSchema **)malloc(sizeof(struct ArrowSchema *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    children[i] = (struct ArrowSchema *)malloc(sizeof(struct ArrowSchema));
    make_schema_with_children(children[i], formats[i], names[i], flink_types ? flink_types[i] : NULL, 0, NULL);
  }
  make_schema_with_children(s, "+s", "row", NULL, n, children);
}

/* ---- reading outputs ---- */

/* The value of metadata key `key` of schema `s` (a pointer into the blob,
 * `*len` bytes), or NULL. */
static inline const char *schema_metadata(const struct ArrowSchema *s, const char *key, int32_t *len) {
  if (!s->metadata) return NULL;
  const char *m = s->metadata;
  int32_t n;
  memcpy(&n, m, 4);
  m += 4;
  for (int32_t i = 0; i < n; i++) {
    int32_t kl, vl;
    memcpy(&kl, m, 4);
    const char *k = m + 4;
    memcpy(&vl, k + kl, 4);
    const char *v = k + kl + 4;
    if ((size_t)kl == strlen(key) && memcmp(k, key, (size_t)kl) == 0) {
      *len = vl;
      return v;
    }
    m = v + vl;
  }
  return NULL;
}

static inline int is_valid_row(const struct ArrowArray *a, int64_t i) {
  const uint8_t *bits = (const uint8_t *)a->buffers[0];
  if (!bits) return 1;
  int64_t j = i + a->offset;
  return (bits[j / 8] >> (j % 8)) & 1;
}

/* Row `i` of a Utf8 array (offset honoured): pointer + length. */
static inline const char *utf8_value(const struct ArrowArray *a, int64_t i, int32_t *len) {
  const int32_t *offs = (const int32_t *)a->buffers[1];
  const char *data = (const char *)a->buffers[2];
  int64_t j = i + a->offset;
  *len = offs[j + 1] - offs[j];
  return data + offs[j];
}

static inline void release_out(struct ArrowArray *out, struct ArrowSchema *out_schema) {
  if (out->release) out->release(out);
  if (out_schema->release) out_schema->release(out_schema);
}

#endif /* SLUICE_TEST_ARROW_BUILD_H */

/*
 * The canary of the sanitizer run (ffi/tests/run.sh): creates a keyed
 * handle and never frees it. Built with -fsanitize=address against the
 * system-allocator libsluice.so, it must FAIL with a LeakSanitizer report of
 * the Rust allocation: proof that the sanitized runs of the real programs
 * see memory the library allocates, not only the C side's.
 */
#include <stdio.h>

#include "arrow_build.h"
#include "sluice.h"

int main(void) {
  struct ArrowSchema schema;
  const char *names[] = {"k", "v"};
  const char *formats[] = {"l", "u"};
  make_struct_schema(&schema, 2, names, formats, NULL);
  struct sluice_keyed *h = NULL;
  int rc = sluice_keyed_create("dedup keys=0 keep=first", &schema, &h);
  schema.release(&schema);
  if (rc != SLUICE_OK || h == NULL) {
    fprintf(stderr, "asan_canary: sluice_keyed_create failed: %s\n", sluice_last_error());
    return 2;
  }
  return 0; /* h leaks on purpose */
}

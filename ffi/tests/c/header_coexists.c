/* sluice.h must compile as C99 and C++, twice (include guard), and after
 * another definition of the Arrow C Data Interface structs (the standard
 * ARROW_C_DATA_INTERFACE guard, as in arrow's abi.h / nanoarrow). */
#define ARROW_C_DATA_INTERFACE
struct ArrowSchema {
  const char *format;
  const char *name;
  const char *metadata;
  long long flags;
  long long n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  void (*release)(struct ArrowSchema *);
  void *private_data;
};
struct ArrowArray {
  long long length;
  long long null_count;
  long long offset;
  long long n_buffers;
  long long n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
  void (*release)(struct ArrowArray *);
  void *private_data;
};
#include "sluice.h"
#include "sluice.h"

int main(void) { return sluice_version() == 0 ? SLUICE_ERR_PANIC : SLUICE_OK; }

/* The check macros of the C99 ABI tests: a failed CHECK prints the file, line, condition and
 * the thread's last ai00 error, counts the failure and goes on; main returns g_failures != 0.
 * Each test program includes this once (the counter is a static of that program). */
#ifndef AI00_TESTS_C_CHECK_H
#define AI00_TESTS_C_CHECK_H

#include <stdio.h>

#include "ai00/ai00.h"

static int g_failures = 0;

#define CHECK(cond)                                                                            \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              ai00_last_error());                                                              \
      ++g_failures;                                                                            \
    }                                                                                          \
  } while (0)

#define CHECK_OK(call) CHECK((call) == AI00_OK)

#endif /* AI00_TESTS_C_CHECK_H */

/* Compiled as C99 with -Wall -Wextra -pedantic -Werror: the public header must be plain C. */
#include "ai00/ai00.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  uint32_t version = 0;
  if (ai00_version_number(&version) != AI00_OK) return 1;
  if (version != AI00_VERSION_NUMBER) {
    fprintf(stderr, "library version %u != header version %d\n", (unsigned)version, AI00_VERSION_NUMBER);
    return 1;
  }
  if (ai00_version_number(NULL) != AI00_ERR_INVALID_ARGUMENT) return 1;
  if (strcmp(ai00_status_string(AI00_OK), "ok") != 0) return 1;
  if (ai00_status_string((ai00_status)12345) == NULL) return 1;
  printf("ai00 %u\n", (unsigned)version);
  return 0;
}

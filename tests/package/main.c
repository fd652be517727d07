/* Links the installed libai00 through find_package(ai00) and calls it. */
#include <ai00/ai00.h>
#include <stdio.h>

int main(void) {
  uint32_t v = 0;
  if (ai00_version_number(&v) != AI00_OK || v != AI00_VERSION_NUMBER) return 1;
  printf("installed ai00 %u\n", (unsigned)v);
  return 0;
}

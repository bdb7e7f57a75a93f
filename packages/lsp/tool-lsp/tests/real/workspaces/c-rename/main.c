#include <stdio.h>
#include "shapes.h"

int main(void) {
  printf("%d\n", area(2));
  return 0;
}

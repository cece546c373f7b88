/* The fake driver tree's nvidia-smi (dry run of e2e/gpu/node-tier.sh): says what it is, so that exec into a container
   is checked without anything passing for a GPU. Built with gcc -static, so it runs in any image. */
#include <stdio.h>
int main(void) {
    puts("nvidia-smi of the fake driver tree (dry run of e2e/gpu/node-tier.sh): no GPU, no processes");
    return 0;
}

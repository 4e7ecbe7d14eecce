/* musterd: the multi-cluster queue dispatcher. */
#include <stdio.h>

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "musterd: not built yet\n");
    return 1;
}

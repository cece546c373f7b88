/* The tier's sandbox image: sleeps until a signal ends it (the role of Kubernetes' pause). Built with gcc -static. */
#include <signal.h>
#include <unistd.h>
static void bye(int s) { (void)s; _exit(0); }
int main(void) {
    signal(SIGTERM, bye);
    signal(SIGINT, bye);
    for (;;) pause();
}

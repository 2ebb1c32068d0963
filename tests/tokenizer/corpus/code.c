/* A small C file: braces, operators, indentation with tabs and spaces. */
#include <stdio.h>

static int fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv)
{
    for (int i = 0; i < 10; i++) {
        printf("%d: %d\n", i, fib(i));   // trailing comment
    }
    const char *s = argv[argc > 1 ? 1 : 0];
    return s[0] == '-' ? 1 : 0;
}

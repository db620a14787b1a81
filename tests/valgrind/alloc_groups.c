/* Allocations with known sizes and a known timeline, for the rules file of
 * tests/cases/valgrind_alloc_rules.sh (groups net, net/tcp, net/udp, parse; xmalloc
 * discarded). No stdio: its buffers would be allocations of their own.
 *
 *   step                                        heap   groups after the step
 *   1 net_open(TCP): tcp_connect 3 x 1000        3000   net/tcp 3000
 *     net_close frees two of them                1000   net/tcp 1000
 *   2 parse_doc: malloc 1000, realloc to 4000    5000   parse 4000 (realloc = free + alloc)
 *   3 net_open(UDP): udp_send calloc(5, 100)     5500   net/udp 500   <- heap peak
 *   4 parse_done frees the document              1500   parse 0
 *   5 main: malloc 200; tcp_stats (not under a   2000   other 500
 *     net_ caller, so not net/tcp): malloc 300
 *
 * Expected per group (cur / peak = share at the heap peak / max = own highest / total / blocks):
 *   net/tcp 1000 / 1000 / 3000 / 3000 / 3      net/udp 500 / 500 / 500 / 500 / 1
 *   net     1500 / 1500 / 3000 / 3500 / 4      parse   0 / 4000 / 4000 / 5000 / 2
 *   other    500 /    0 /  500 /  500 / 2      heap peak 5500
 */
#include <stdlib.h>

static void *tcp_blocks[3];
static void *udp_block, *doc;
volatile void *sink;

__attribute__((noinline)) static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p)
		abort();
	return p;
}

__attribute__((noinline)) static void tcp_connect(void)
{
	for (int i = 0; i < 3; i++)
		tcp_blocks[i] = xmalloc(1000);
}

__attribute__((noinline)) static void udp_send(void)
{
	udp_block = calloc(5, 100);
}

__attribute__((noinline)) static void net_open(int tcp)
{
	if (tcp)
		tcp_connect();
	else
		udp_send();
}

__attribute__((noinline)) static void net_close(void)
{
	free(tcp_blocks[1]);
	free(tcp_blocks[2]);
}

__attribute__((noinline)) static void parse_doc(void)
{
	doc = xmalloc(1000);
	doc = realloc(doc, 4000);
}

__attribute__((noinline)) static void parse_done(void)
{
	free(doc);
}

__attribute__((noinline)) static void *tcp_stats(void)
{
	return xmalloc(300);
}

int main(void)
{
	net_open(1);
	net_close();
	parse_doc();
	net_open(0);
	parse_done();
	sink = xmalloc(200);
	sink = tcp_stats();
	return 0;
}

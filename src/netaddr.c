/* netaddr.c: client addresses, CIDR blocks and X-Forwarded-For chains (see netaddr.h). */
#include "netaddr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void netaddr_key(const char *addr, uint8_t key[NETADDR_KEY_LEN])
{
    memset(key, 0, NETADDR_KEY_LEN);
    uint8_t a[16];
    if (addr && inet_pton(AF_INET, addr, a) == 1) {
        key[0] = 4;
        memcpy(key + 1, a, 4);
    } else if (addr && inet_pton(AF_INET6, addr, a) == 1) {
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (memcmp(a, mapped, sizeof mapped) == 0) {
            key[0] = 4;
            memcpy(key + 1, a + 12, 4);
        } else {
            key[0] = 6;
            memcpy(key + 1, a, 8);
        }
    }
}

uint64_t netaddr_key_hash(const uint8_t key[NETADDR_KEY_LEN])
{
    uint64_t h = 14695981039346656037u;
    for (int i = 0; i < NETADDR_KEY_LEN; i++)
        h = (h ^ key[i]) * 1099511628211u;
    return h ? h : 1;
}

void netaddr_text(const struct sockaddr *sa, char *out, size_t n)
{
    out[0] = 0;
    if (!sa)
        return;
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)(const void *)sa;
        if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr))
            inet_ntop(AF_INET, &s6->sin6_addr.s6_addr[12], out, (socklen_t)n);
        else
            inet_ntop(AF_INET6, &s6->sin6_addr, out, (socklen_t)n);
    } else if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
                  (socklen_t)n);
    }
}

/* Parses "ADDR" or "ADDR/BITS" (IPv4 or IPv6), n bytes of text, into c. */
static bool block_parse(const char *text, size_t n, struct netaddr_block *c)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, text, n);
    buf[n] = 0;
    char *slash = strchr(buf, '/');
    if (slash)
        *slash = 0;
    memset(c, 0, sizeof *c);
    if (inet_pton(AF_INET, buf, c->addr) == 1) {
        c->family = AF_INET;
        c->bits = 32;
    } else if (inet_pton(AF_INET6, buf, c->addr) == 1) {
        c->family = AF_INET6;
        c->bits = 128;
    } else {
        return false;
    }
    if (slash) {
        char *end;
        long bits = strtol(slash + 1, &end, 10);
        if (!slash[1] || *end || bits < 0 || bits > c->bits)
            return false;
        c->bits = (int)bits;
    }
    return true;
}

bool netaddr_blocks_parse(const char *list, struct netaddr_blocks *out)
{
    out->n = 0;
    for (const char *p = list ? list : ""; *p;) {
        p += strspn(p, " ,");
        size_t len = strcspn(p, " ,");
        if (!len)
            break;
        if (out->n == NETADDR_MAX_BLOCKS || !block_parse(p, len, &out->b[out->n])) {
            out->n = 0;
            return false;
        }
        out->n++;
        p += len;
    }
    return true;
}

bool netaddr_blocks_contain(const struct netaddr_blocks *bl, const char *addr)
{
    struct netaddr_block a;
    if (!bl->n || !block_parse(addr, strlen(addr), &a))
        return false;
    for (int i = 0; i < bl->n; i++) {
        const struct netaddr_block *c = &bl->b[i];
        if (c->family != a.family)
            continue;
        int full = c->bits / 8, rest = c->bits % 8;
        if (memcmp(c->addr, a.addr, (size_t)full) != 0)
            continue;
        unsigned char mask = (unsigned char)(0xff << (8 - rest));
        if (rest == 0 || (c->addr[full] & mask) == (a.addr[full] & mask))
            return true;
    }
    return false;
}

void netaddr_forwarded_client(const struct netaddr_blocks *trusted, const char *xff, size_t len,
                              char *client, size_t n)
{
    size_t end = len;
    while (end > 0) {
        size_t start = end;
        while (start > 0 && xff[start - 1] != ',')
            start--;
        size_t a = start, b = end;
        while (a < b && (xff[a] == ' ' || xff[a] == '\t'))
            a++;
        while (b > a && (xff[b - 1] == ' ' || xff[b - 1] == '\t'))
            b--;
        struct netaddr_block hop;
        if (!block_parse(xff + a, b - a, &hop) || hop.bits != (hop.family == AF_INET ? 32 : 128))
            return; /* not an address: keep the last trusted hop */
        snprintf(client, n, "%.*s", (int)(b - a), xff + a);
        if (!netaddr_blocks_contain(trusted, client))
            return;
        end = start > 0 ? start - 1 : 0;
    }
}

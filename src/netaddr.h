/* netaddr.h: client addresses as the per-address limits see them: a socket address as numeric
 * text (an IPv4-mapped IPv6 address as IPv4), lists of CIDR blocks (the trusted proxies), and
 * the client named by an X-Forwarded-For chain behind trusted proxies. No I/O, no state. */
#ifndef CITY_NETADDR_H
#define CITY_NETADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

enum { NETADDR_MAX_BLOCKS = 32 };

struct netaddr_block {
    int family; /* AF_INET or AF_INET6 */
    unsigned char addr[16];
    int bits;
};

struct netaddr_blocks {
    struct netaddr_block b[NETADDR_MAX_BLOCKS];
    int n;
};

/* The bytes of an address key: its family (4, 6, or 0 for anything else) and the bytes that
 * count (with room to spare for a longer key). */
enum { NETADDR_KEY_LEN = 17 };

/* Writes into key what every per-address limit counts by for the numeric address `addr`: IPv4
 * (also IPv4-mapped IPv6) by its 4 bytes, IPv6 by its /64 (one subscriber usually holds a whole
 * /64), and anything else (NULL, "", not an address) as one shared key. */
void netaddr_key(const char *addr, uint8_t key[NETADDR_KEY_LEN]);

/* A 64-bit hash of a key (FNV-1a), never 0 (0 means "no address" to its users). */
uint64_t netaddr_key_hash(const uint8_t key[NETADDR_KEY_LEN]);

/* Writes sa's address as numeric text into out (n bytes); "" for another family or NULL. */
void netaddr_text(const struct sockaddr *sa, char *out, size_t n);

/* Parses a list of addresses or CIDR blocks separated by commas or spaces ("10.0.0.0/8,::1";
 * NULL or "" is the empty list) into *out. False, with *out empty, when an entry does not
 * parse or there are more than NETADDR_MAX_BLOCKS. */
bool netaddr_blocks_parse(const char *list, struct netaddr_blocks *out);

/* True when the numeric address `addr` falls in one of the blocks. */
bool netaddr_blocks_contain(const struct netaddr_blocks *bl, const char *addr);

/* Given the TCP peer's address in client (n bytes), which the caller found in `trusted`, and
 * the X-Forwarded-For chain xff (len bytes, hops separated by commas): reads the chain from
 * the right and leaves in client the nearest hop that is not itself trusted, or the last
 * trusted one when a hop is not an address or the chain runs out. */
void netaddr_forwarded_client(const struct netaddr_blocks *trusted, const char *xff, size_t len,
                              char *client, size_t n);

#endif

/* test_netaddr.c: what the per-address limits count by (netaddr_key): IPv4 by address, IPv6 by
 * its /64, IPv4-mapped IPv6 as the IPv4 address; and trusted proxy blocks. */
#include <criterion/criterion.h>
#include <string.h>

#include "netaddr.h"

static bool same_key(const char *a, const char *b)
{
    uint8_t ka[NETADDR_KEY_LEN], kb[NETADDR_KEY_LEN];
    netaddr_key(a, ka);
    netaddr_key(b, kb);
    return memcmp(ka, kb, NETADDR_KEY_LEN) == 0;
}

Test(netaddr, addresses_of_one_ipv6_64_count_as_one)
{
    cr_expect(same_key("2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"));
    cr_expect(same_key("2001:db8:1:2::1", "2001:0db8:0001:0002:0:0:0:99"));
    cr_expect(!same_key("2001:db8:1:2::1", "2001:db8:1:3::1"), "another /64 is another key");
}

Test(netaddr, ipv4_counts_by_address_and_mapped_ipv6_as_its_ipv4)
{
    cr_expect(!same_key("192.0.2.1", "192.0.2.2"));
    cr_expect(same_key("192.0.2.1", "::ffff:192.0.2.1"));
    cr_expect(!same_key("192.0.2.1", "::1"));
}

Test(netaddr, what_is_not_an_address_shares_one_key)
{
    cr_expect(same_key(NULL, ""));
    cr_expect(same_key("", "not an address"));
    cr_expect(!same_key("", "127.0.0.1"));
}

Test(netaddr, trusted_blocks_hold_their_addresses)
{
    struct netaddr_blocks bl;
    cr_assert(netaddr_blocks_parse("10.0.0.0/8, ::1", &bl));
    cr_expect(netaddr_blocks_contain(&bl, "10.1.2.3"));
    cr_expect(netaddr_blocks_contain(&bl, "::1"));
    cr_expect(!netaddr_blocks_contain(&bl, "11.0.0.1"));
    cr_expect(!netaddr_blocks_parse("10.0.0.0/33", &bl));
}

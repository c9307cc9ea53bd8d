"""Which resolved addresses the broker may connect to.

Only globally routable unicast addresses, unless the operator's `http.allow_private` holds a
CIDR containing the address. The stdlib's `is_global` is not enough on its own (on 3.11 it
calls multicast, IPv4-compatible `::7f00:1`, 6to4 `2002:7f00:1::` and NAT64 `64:ff9b::7f00:1`
global), so the ranges below are listed explicitly and checked first, then `is_global` as a
second opinion; IPv6 forms that carry an IPv4 address are unwrapped and the IPv4 address must
pass too.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

_V4 = ipaddress.IPv4Network
_V6 = ipaddress.IPv6Network

# IANA special-purpose registries, plus the cloud metadata addresses (inside these ranges,
# named so a reader sees them).
REFUSED_V4: tuple[tuple[ipaddress.IPv4Network, str], ...] = (
    (_V4("0.0.0.0/8"), "'this network' (0.0.0.0/8)"),
    (_V4("10.0.0.0/8"), "private (RFC 1918)"),
    (_V4("100.100.100.200/32"), "cloud metadata (Alibaba)"),
    (_V4("100.64.0.0/10"), "shared address space (CGNAT, RFC 6598)"),
    (_V4("127.0.0.0/8"), "loopback"),
    (_V4("169.254.169.254/32"), "cloud metadata (link-local)"),
    (_V4("169.254.0.0/16"), "link-local"),
    (_V4("172.16.0.0/12"), "private (RFC 1918)"),
    (_V4("192.0.0.0/24"), "IETF protocol assignments"),
    (_V4("192.0.2.0/24"), "documentation (TEST-NET-1)"),
    (_V4("192.88.99.0/24"), "6to4 relay anycast"),
    (_V4("192.168.0.0/16"), "private (RFC 1918)"),
    (_V4("198.18.0.0/15"), "benchmarking"),
    (_V4("198.51.100.0/24"), "documentation (TEST-NET-2)"),
    (_V4("203.0.113.0/24"), "documentation (TEST-NET-3)"),
    (_V4("224.0.0.0/4"), "multicast"),
    (_V4("255.255.255.255/32"), "broadcast"),
    (_V4("240.0.0.0/4"), "reserved"),
)
REFUSED_V6: tuple[tuple[ipaddress.IPv6Network, str], ...] = (
    (_V6("::/128"), "unspecified"),
    (_V6("::1/128"), "loopback"),
    (_V6("::ffff:0:0/96"), "IPv4-mapped"),
    (_V6("::/96"), "IPv4-compatible (deprecated)"),
    (_V6("::ffff:0:0:0/96"), "IPv4-translated"),
    (_V6("64:ff9b:1::/48"), "local-use NAT64"),
    (_V6("100::/64"), "discard-only"),
    (_V6("2001::/23"), "IETF protocol assignments (Teredo, ORCHID, ...)"),
    (_V6("2001:db8::/32"), "documentation"),
    (_V6("3fff::/20"), "documentation"),
    (_V6("5f00::/16"), "segment routing (SRv6)"),
    (_V6("fd00:ec2::254/128"), "cloud metadata (AWS)"),
    (_V6("fc00::/7"), "unique local (ULA)"),
    (_V6("fe80::/10"), "link-local"),
    (_V6("fec0::/10"), "site-local (deprecated)"),
    (_V6("ff00::/8"), "multicast"),
)
_NAT64 = _V6("64:ff9b::/96")
_SIXTOFOUR = _V6("2002::/16")


def parse_address(text: str) -> IPAddress | None:
    """`text` as an address (an IPv6 scope such as `%eth0` is kept), or None."""
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def embedded_v4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 form reaches (mapped, 6to4, NAT64, Teredo), or None."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.teredo is not None:
        return address.teredo[1]
    return None


def address_problem(address: IPAddress, allow_private: Sequence[IPNetwork]) -> str | None:
    """Why the broker may not connect to `address` (a short phrase), or None when it may.
    An address inside an `allow_private` CIDR is allowed whatever its range."""
    plain = address
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id:
        plain = ipaddress.IPv6Address(address.compressed.split("%", 1)[0])
    if any(plain.version == net.version and plain in net for net in allow_private):
        return None
    if isinstance(plain, ipaddress.IPv4Address):
        for net4, what in REFUSED_V4:
            if plain in net4:
                return what
    else:
        for net6, what in REFUSED_V6:
            if plain in net6:
                return what
        inner = embedded_v4(plain)
        if inner is not None:
            problem = address_problem(inner, ())
            if problem is not None:
                return f"an IPv6 form of {inner} ({problem})"
    if plain.is_multicast:
        return "multicast"
    if not plain.is_global:
        return "not globally routable"
    return None

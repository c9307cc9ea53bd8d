"""Which addresses the broker may connect to."""

from __future__ import annotations

import ipaddress

import pytest

from dyntools.capabilities.addresses import address_problem, embedded_v4, parse_address

REFUSED = {
    "0.0.0.0": "this network", "0.1.2.3": "this network", "10.0.0.1": "RFC 1918",
    "172.16.0.1": "RFC 1918", "172.31.255.255": "RFC 1918", "192.168.1.1": "RFC 1918",
    "100.64.0.1": "CGNAT", "100.127.255.255": "CGNAT", "100.100.100.200": "metadata",
    "127.0.0.1": "loopback", "127.255.255.254": "loopback", "169.254.169.254": "metadata",
    "169.254.1.1": "link-local", "192.0.0.9": "IETF", "192.0.2.1": "documentation",
    "198.18.0.1": "benchmarking", "198.51.100.1": "documentation",
    "203.0.113.1": "documentation", "224.0.0.1": "multicast", "239.255.255.250": "multicast",
    "240.0.0.1": "reserved", "255.255.255.255": "broadcast", "192.88.99.1": "6to4",
    "::": "unspecified", "::1": "loopback", "::ffff:127.0.0.1": "IPv4-mapped",
    "::ffff:8.8.8.8": "IPv4-mapped", "::127.0.0.1": "IPv4-compatible",
    "::8.8.8.8": "IPv4-compatible", "fd00:ec2::254": "metadata", "fc00::1": "unique local",
    "fdff::1": "unique local", "fe80::1": "link-local", "fe80::1%eth0": "link-local",
    "febf::1": "link-local", "fec0::1": "site-local", "ff02::1": "multicast",
    "ff05::2": "multicast", "2001:db8::1": "documentation", "100::1": "discard",
    "64:ff9b::7f00:1": "127.0.0.1", "64:ff9b::a9fe:a9fe": "169.254.169.254",
    "64:ff9b:1::1": "NAT64", "2002:7f00:1::": "127.0.0.1", "2002:a00:1::1": "10.0.0.1",
    "2001:0:4136:e378:8000:63bf:80ff:fffe": "Teredo", "3fff::1": "documentation",
}
ALLOWED = ["8.8.8.8", "1.1.1.1", "93.184.215.14", "140.82.112.3", "2606:4700::1111",
           "2a00:1450:4001:82a::200e", "64:ff9b::808:808", "2002:808:808::1"]


@pytest.mark.parametrize(("text", "why"), sorted(REFUSED.items()))
def test_refused_ranges(text, why):
    address = parse_address(text)
    assert address is not None
    problem = address_problem(address, ())
    assert problem is not None and why.lower() in problem.lower(), problem


@pytest.mark.parametrize("text", ALLOWED)
def test_public_unicast_is_allowed(text):
    assert address_problem(ipaddress.ip_address(text), ()) is None


def test_allow_private_opens_exactly_its_cidr():
    nets = (ipaddress.ip_network("127.0.0.1/32"), ipaddress.ip_network("fd12::/64"))
    assert address_problem(ipaddress.ip_address("127.0.0.1"), nets) is None
    assert address_problem(ipaddress.ip_address("127.0.0.2"), nets) is not None
    assert address_problem(ipaddress.ip_address("fd12::5"), nets) is None
    assert address_problem(ipaddress.ip_address("fd13::5"), nets) is not None
    # A mapped form of an allowed v4 address is still refused (it is not that address).
    assert address_problem(ipaddress.ip_address("::ffff:127.0.0.1"), nets) is not None


def test_embedded_v4_forms():
    assert str(embedded_v4(ipaddress.IPv6Address("::ffff:1.2.3.4"))) == "1.2.3.4"
    assert str(embedded_v4(ipaddress.IPv6Address("2002:102:304::"))) == "1.2.3.4"
    assert str(embedded_v4(ipaddress.IPv6Address("64:ff9b::102:304"))) == "1.2.3.4"
    assert embedded_v4(ipaddress.IPv6Address("2606:4700::1111")) is None
    assert embedded_v4(ipaddress.IPv4Address("1.2.3.4")) is None


def test_parse_address():
    assert parse_address("not an address") is None
    assert parse_address("127.1") is None  # only canonical literals
    assert parse_address("fe80::1%eth0") is not None

//! The `Host` header a request must carry (RFC 9112 3.2): one, in every HTTP/1.1
//! request, and never two or one that is no `host[:port]`.

use axum::http::request::Parts;
use axum::http::{Version, header};

use super::paths;
use super::validators::{NotOneLine, one_line};

/// Why a request's `Host` is refused, if it is (a 400 for any method).
pub fn refusal(request: &Parts) -> Option<&'static str> {
    match one_line(&request.headers, header::HOST) {
        Ok(None) if request.version == Version::HTTP_11 => {
            Some("an HTTP/1.1 request needs a Host header")
        }
        Ok(Some(host)) if !is_host_and_port(host) => Some("the Host header is no host[:port]"),
        Ok(_) => None,
        Err(NotOneLine) => Some("a request takes one Host header, as text"),
    }
}

/// Whether `value` is `host[:port]` (RFC 9110 7.2, RFC 3986 3.2.2): an IPv6 address in
/// brackets or a name (an IPv4 address is one), then nothing or `:` and digits. A name is
/// unreserved characters, sub-delimiters and percent-encodings, and may be empty, as a
/// Host may. `http::uri::Authority` takes more (a port of letters, brackets inside a
/// name), and a userinfo, which a Host must not have.
fn is_host_and_port(value: &str) -> bool {
    let (host_ok, port) = match value.strip_prefix('[') {
        Some(literal) => match literal.split_once(']') {
            Some((address, port)) => (address.parse::<std::net::Ipv6Addr>().is_ok(), port),
            None => return false,
        },
        None => {
            let (name, port) = value.split_at(value.find(':').unwrap_or(value.len()));
            (is_name(name), port)
        }
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()));
    host_ok && port_ok
}

/// RFC 3986's `reg-name`: its characters, each `%` starting two hex digits (as a path's
/// percent-encoding is checked, [`paths::decode`]).
fn is_name(name: &str) -> bool {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=%".contains(&b);
    name.bytes().all(allowed) && paths::decode(name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_and_port_by_the_grammar() {
        for good in [
            "",
            "a",
            "a:80",
            "a:",
            "example.com",
            "ex%41mple.com",
            "127.0.0.1:8080",
            "[::1]",
            "[::1]:8080",
            "a-b_c~d!$&'()*+,;=",
            ":80",
        ] {
            assert!(is_host_and_port(good), "{good:?}");
        }
        for bad in [
            "a b",
            "@@@",
            "user@a",
            "host:abc",
            "a[b]c",
            "[zzz]",
            "[::1]abc",
            "[::1",
            "[fe80::1%25eth0]",
            "::1",
            "a:80:90",
            "a%4",
            "a%zz",
            "a/b",
            "a\\b",
            "é",
        ] {
            assert!(!is_host_and_port(bad), "{bad:?}");
        }
    }
}

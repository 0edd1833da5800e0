//! The smallest HTTP/1.1 server `sift serve` needs: GET and HEAD of static files, keep-alive,
//! one thread per connection.
//!
//! Why not tiny_http (used before): its connection pool starts 4 threads and hands a new
//! connection to a waiting one; two connections arriving together can both be handed to the
//! same waiting thread (the second wake-up is lost), and that thread then serves the first
//! for its whole keep-alive life. With Chromium's 5–6 parallel keep-alive connections the
//! other one's request sat unread in the socket forever: the "a test-server request never
//! completes" flake of the browser and extension tests (seen with `ss`: 5 connections, 4
//! reader threads, 516 bytes unread). A thread per connection cannot starve.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

/// The request line and headers together may not exceed this.
pub const MAX_HEAD_BYTES: u64 = 16 * 1024;
/// A request body (never used: only GET and HEAD are served) is read and dropped up to this;
/// a longer one closes the connection.
const MAX_DRAINED_BODY: u64 = 1 << 20;
/// An idle keep-alive connection is closed after this.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// A request as the handler sees it.
#[derive(Debug, PartialEq)]
pub struct Request {
    pub method: String,
    /// The request target as sent (path, query, fragment).
    pub target: String,
}

/// A response: status, headers (Content-Length and Connection are added), body.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Body,
}

pub enum Body {
    Bytes(Vec<u8>),
    File(std::fs::File, u64),
}

impl Response {
    pub fn text(status: u16, text: impl Into<String>) -> Response {
        let headers = vec![("Content-Type", "text/plain; charset=utf-8".to_string())];
        Response { status, headers, body: Body::Bytes(text.into().into_bytes()) }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        _ => "Error",
    }
}

/// Why a request could not be read.
#[derive(Debug)]
enum ReadError {
    /// The peer closed, or stayed idle past the timeout, between requests.
    Closed,
    /// Not HTTP: answered with this status, then the connection is closed.
    Bad(u16),
    Io,
}

/// One request from the connection, with whether it may stay open and how long its body is.
fn read_request(r: &mut BufReader<TcpStream>) -> Result<(Request, bool, u64), ReadError> {
    let mut head = r.by_ref().take(MAX_HEAD_BYTES);
    let mut line = String::new();
    // The request line (empty lines before it are allowed by RFC 9112).
    loop {
        line.clear();
        match head.read_line(&mut line) {
            Ok(0) if head.limit() == 0 => return Err(ReadError::Bad(431)),
            Ok(0) => return Err(ReadError::Closed),
            Ok(_) if line.trim().is_empty() => continue,
            Ok(_) => break,
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => return Err(ReadError::Closed),
            Err(e) if e.kind() == io::ErrorKind::InvalidData => return Err(ReadError::Bad(400)),
            Err(_) => return Err(ReadError::Io),
        }
    }
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(ReadError::Bad(400));
    };
    if !version.starts_with("HTTP/1.") || !target.starts_with('/') {
        return Err(ReadError::Bad(400));
    }
    let request = Request { method: method.to_string(), target: target.to_string() };
    let mut keep_alive = version == "HTTP/1.1";
    let mut body = 0u64;
    loop {
        line.clear();
        match head.read_line(&mut line) {
            Ok(_) if !line.ends_with('\n') => return Err(ReadError::Bad(if head.limit() == 0 { 431 } else { 400 })),
            Ok(_) if line.trim().is_empty() => break,
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::InvalidData => return Err(ReadError::Bad(400)),
            Err(_) => return Err(ReadError::Io),
        }
        let Some((name, value)) = line.split_once(':') else { return Err(ReadError::Bad(400)) };
        let value = value.trim().to_ascii_lowercase();
        match name.trim().to_ascii_lowercase().as_str() {
            "connection" if value.contains("close") => keep_alive = false,
            "connection" if value.contains("keep-alive") => keep_alive = true,
            "content-length" => body = value.parse().map_err(|_| ReadError::Bad(400))?,
            // A chunked body's length is unknown without decoding it: answer, then close.
            "transfer-encoding" => keep_alive = false,
            _ => {}
        }
    }
    Ok((request, keep_alive, body))
}

fn write_response(w: &mut TcpStream, resp: Response, head_only: bool, keep_alive: bool) -> io::Result<()> {
    let len = match &resp.body {
        Body::Bytes(b) => b.len() as u64,
        Body::File(_, n) => *n,
    };
    let mut head = format!("HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status));
    for (k, v) in &resp.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {len}\r\nConnection: {}\r\n\r\n", if keep_alive { "keep-alive" } else { "close" }));
    w.write_all(head.as_bytes())?;
    if !head_only {
        match resp.body {
            Body::Bytes(b) => w.write_all(&b)?,
            Body::File(f, n) => {
                io::copy(&mut f.take(n), w)?;
            }
        }
    }
    w.flush()
}

/// Serve one connection until the peer closes it, asks to, or stays idle.
fn connection(stream: TcpStream, handler: &(dyn Fn(&Request) -> Response + Sync), served: &dyn Fn()) {
    let _ = stream.set_read_timeout(Some(IDLE_TIMEOUT));
    let _ = stream.set_nodelay(true);
    let Ok(read_half) = stream.try_clone() else { return };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    loop {
        let (req, mut keep_alive, body) = match read_request(&mut reader) {
            Ok(r) => r,
            Err(ReadError::Bad(status)) => {
                let _ = write_response(&mut writer, Response::text(status, reason(status)), false, false);
                return;
            }
            Err(ReadError::Closed | ReadError::Io) => return,
        };
        if body > MAX_DRAINED_BODY {
            keep_alive = false;
        } else if body > 0 && io::copy(&mut reader.by_ref().take(body), &mut io::sink()).is_err() {
            return;
        }
        let resp = handler(&req);
        let ok = write_response(&mut writer, resp, req.method == "HEAD", keep_alive).is_ok();
        served();
        if !ok || !keep_alive {
            return;
        }
    }
}

/// Accept connections forever, each on a thread of its own. `served` is called after each
/// response.
pub fn serve(
    listener: TcpListener,
    handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    served: impl Fn() + Send + Sync + 'static,
) {
    let shared = std::sync::Arc::new((handler, served));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let shared = shared.clone();
        std::thread::spawn(move || connection(stream, &shared.0, &shared.1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn start() -> std::net::SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            serve(
                listener,
                |r: &Request| match r.method.as_str() {
                    "GET" | "HEAD" => Response::text(200, format!("you asked for {}", r.target)),
                    _ => Response::text(405, "method not allowed"),
                },
                || {},
            )
        });
        addr
    }

    /// Send `raw` on a connection and read one response (headers and a Content-Length body).
    fn exchange(c: &mut TcpStream, raw: &str) -> String {
        c.write_all(raw.as_bytes()).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut buf = Vec::new();
        let mut byte = [0u8; 1];
        while !buf.ends_with(b"\r\n\r\n") {
            assert_eq!(c.read(&mut byte).expect("an answer within 5 s"), 1, "closed early: {}", String::from_utf8_lossy(&buf));
            buf.push(byte[0]);
        }
        let head = String::from_utf8(buf).unwrap();
        let len: usize = head.lines().find_map(|l| l.strip_prefix("Content-Length: ")).unwrap().trim().parse().unwrap();
        let mut body = vec![0u8; if raw.starts_with("HEAD") { 0 } else { len }];
        c.read_exact(&mut body).unwrap();
        head + &String::from_utf8(body).unwrap()
    }

    #[test]
    fn idle_keep_alive_connections_never_hold_up_a_new_one() {
        // tiny_http left the request of the fifth of Chromium's connections unread forever.
        let addr = start();
        let mut idle: Vec<TcpStream> = (0..8).map(|_| TcpStream::connect(addr).unwrap()).collect();
        for (i, c) in idle.iter_mut().enumerate() {
            let r = exchange(c, &format!("GET /f{i} HTTP/1.1\r\nHost: x\r\n\r\n"));
            assert!(r.starts_with("HTTP/1.1 200") && r.ends_with(&format!("/f{i}")) && r.contains("Connection: keep-alive"), "{r}");
        }
        let mut late = TcpStream::connect(addr).unwrap();
        assert!(exchange(&mut late, "GET /late HTTP/1.1\r\n\r\n").ends_with("/late"));
        // Every idle connection still answers its next request.
        for c in &mut idle {
            assert!(exchange(c, "GET /again HTTP/1.1\r\n\r\n").ends_with("/again"));
        }
    }

    #[test]
    fn bad_requests_get_a_status_and_a_closed_connection() {
        let addr = start();
        let ask = |raw: &str| {
            let mut c = TcpStream::connect(addr).unwrap();
            exchange(&mut c, raw)
        };
        assert!(ask("NONSENSE\r\n\r\n").starts_with("HTTP/1.1 400"));
        assert!(ask("GET no-slash HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 400"));
        assert!(ask("GET / SPDY/3\r\n\r\n").starts_with("HTTP/1.1 400"));
        assert!(ask("GET / HTTP/1.1\r\nno colon here\r\n\r\n").starts_with("HTTP/1.1 400"));
        let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(20_000));
        assert!(ask(&huge).starts_with("HTTP/1.1 431"));
        // A POST body is drained, the method refused, and the connection stays usable.
        let mut c = TcpStream::connect(addr).unwrap();
        assert!(exchange(&mut c, "POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello").starts_with("HTTP/1.1 405"));
        assert!(exchange(&mut c, "HEAD /y HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 200"));
        // HTTP/1.0 and `Connection: close` close after the answer.
        let mut c = TcpStream::connect(addr).unwrap();
        let r = exchange(&mut c, "GET /z HTTP/1.1\r\nConnection: close\r\n\r\n");
        assert!(r.contains("Connection: close"), "{r}");
        let mut rest = Vec::new();
        assert_eq!(c.read_to_end(&mut rest).unwrap(), 0, "closed");
    }
}

# Sourced by the benchmarks that read Debian's rust-doc (the Rust standard library's docs,
# 32,101 pages): RUST_DOC, where it is, installed with apt when absent. Idempotent.
RUST_DOC=/usr/share/doc/rust-doc/html
if [ ! -d "$RUST_DOC" ]; then
  echo "bench: installing rust-doc (the Rust standard library's docs, 32,101 pages)"
  (apt-get install -y rust-doc || (apt-get update && apt-get install -y rust-doc)) > /dev/null
fi

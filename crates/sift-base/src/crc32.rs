//! The two checksums the runtime verifies, one byte at a time over a 1 KB table built for
//! each call: crc32fast's and fst's slice-by-16 tables would be 32 KB of the browser
//! runtime, and checking the few hundred kB a search fetches is fast either way. Built per
//! call, not at compile time: tables of constants are random-looking bytes that do not
//! compress, and building one is 2,048 shifts beside the inflating of the shard it checks:
//! - CRC-32 (IEEE 802.3: reflected, polynomial 0xEDB88320, initial and final XOR
//!   0xFFFFFFFF), the checksum of every shard and of the shard table;
//! - CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), masked as fst (and Snappy)
//!   mask it: the checksum an fst stores in its last four bytes.

fn table(poly: u32) -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { poly ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

const IEEE: u32 = 0xEDB8_8320;
const CASTAGNOLI: u32 = 0x82F6_3B78;

fn reflected(poly: u32, bytes: &[u8]) -> u32 {
    let table = table(poly);
    !bytes.iter().fold(!0u32, |c, &b| table[((c ^ u32::from(b)) & 0xFF) as usize] ^ (c >> 8))
}

/// The CRC-32 of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    reflected(IEEE, bytes)
}

/// fst's checksum of `bytes`: CRC-32C, rotated right by 15 and offset by 0xA282EAD8.
pub fn crc32c_masked(bytes: &[u8]) -> u32 {
    reflected(CASTAGNOLI, bytes).rotate_right(15).wrapping_add(0xA282_EAD8)
}

#[cfg(test)]
mod tests {
    use super::crc32;

    #[test]
    fn matches_the_standard_check_value_and_crc32fast() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926, "the catalogue's check value");
        assert_eq!(crc32(b""), 0);
        let mut s = 0x9E37_79B9u32;
        for len in [1usize, 7, 64, 1000, 65_537] {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 17;
                    s ^= s << 5;
                    s as u8
                })
                .collect();
            assert_eq!(crc32(&bytes), crc32fast::hash(&bytes), "{len} bytes");
        }
    }

    #[test]
    fn the_castagnoli_checksum_has_the_catalogues_check_value() {
        assert_eq!(super::reflected(super::CASTAGNOLI, b"123456789"), 0xE306_9283);
    }
}

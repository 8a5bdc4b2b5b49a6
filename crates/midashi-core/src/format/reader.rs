//! Reading payloads: postcard's wire format, read field by field.
//!
//! The files are written with serde and postcard ([`super::encode`]). They are read here
//! instead of through serde's derived readers because those cost the browser: every field
//! of every payload type became its own visitor code, inlined around postcard's generic
//! deserializer, a third of the search module a large site's first query downloads. A
//! [`Decode`] impl is the list of a type's fields in declaration order, each read by a
//! small non-generic method of [`Reader`]; what postcard writes for each Rust type is
//! documented at the methods. `tests/` decode every file of real indexes both ways and
//! compare, so the two cannot drift apart unnoticed.

/// Why bytes could not be read (becomes [`crate::Error::Malformed`]'s detail).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadError(pub &'static str);

/// Result of reading.
pub type ReadResult<T> = std::result::Result<T, ReadError>;

/// A cursor over a payload.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn take(&mut self, n: usize) -> ReadResult<&'a [u8]> {
        if n > self.remaining() {
            return Err(ReadError("the data ends early"));
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    /// `u8`: one byte as is.
    pub fn byte(&mut self) -> ReadResult<u8> {
        Ok(self.take(1)?[0])
    }

    /// `u16`, `u32`, `u64`, `usize`: LEB128, at most `max_bits` significant bits.
    fn varint(&mut self, max_bits: u32) -> ReadResult<u64> {
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let b = self.byte()?;
            let bits = u64::from(b & 0x7f);
            if shift >= max_bits || (shift > 0 && bits >> (max_bits - shift).min(63) != 0) {
                return Err(ReadError("a number is out of range"));
            }
            value |= bits << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
            shift += 7;
        }
    }

    /// A `u32` (varint).
    pub fn u32(&mut self) -> ReadResult<u32> {
        Ok(self.varint(32)? as u32)
    }

    /// A `u64` (varint).
    pub fn u64(&mut self) -> ReadResult<u64> {
        self.varint(64)
    }

    /// A length (a `usize`, varint), no larger than the bytes left: every element a length
    /// counts takes at least one byte, so a larger one is damage, not a reason to allocate.
    pub fn length(&mut self) -> ReadResult<usize> {
        let n = self.varint(64)?;
        if n > self.remaining() as u64 {
            return Err(ReadError("a length runs past the end of the data"));
        }
        Ok(n as usize)
    }

    /// `bool`: one byte, 0 or 1.
    pub fn bool(&mut self) -> ReadResult<bool> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(ReadError("a flag is neither 0 nor 1")),
        }
    }

    /// `f32`: four bytes, little-endian.
    pub fn f32(&mut self) -> ReadResult<f32> {
        let b = self.take(4)?;
        Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// `&str`: a length, then UTF-8.
    pub fn str(&mut self) -> ReadResult<&'a str> {
        let n = self.length()?;
        std::str::from_utf8(self.take(n)?).map_err(|_| ReadError("a string is not UTF-8"))
    }

    /// `Vec<u8>` written with `serde_bytes`: a length, then the bytes.
    pub fn bytes(&mut self) -> ReadResult<Vec<u8>> {
        let n = self.length()?;
        Ok(self.take(n)?.to_vec())
    }

    /// `[u8; N]`: N bytes, no length.
    pub fn array<const N: usize>(&mut self) -> ReadResult<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// `Option<T>`: a byte, 0 for `None`, 1 then the value for `Some`.
    pub fn option<T>(
        &mut self,
        read: impl FnOnce(&mut Self) -> ReadResult<T>,
    ) -> ReadResult<Option<T>> {
        match self.byte()? {
            0 => Ok(None),
            1 => read(self).map(Some),
            _ => Err(ReadError("an optional value has a bad tag")),
        }
    }

    /// `Vec<T>`: a length, then the elements.
    pub fn seq<T>(
        &mut self,
        mut read: impl FnMut(&mut Self) -> ReadResult<T>,
    ) -> ReadResult<Vec<T>> {
        let n = self.length()?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(read(self)?);
        }
        Ok(out)
    }

    /// A unit-only enum: its variant's index (varint), below `variants`.
    pub fn variant(&mut self, variants: u32) -> ReadResult<u32> {
        let v = self.u32()?;
        if v >= variants {
            return Err(ReadError("an unknown kind"));
        }
        Ok(v)
    }

    /// A value of a type read through serde after all (a third-party type): postcard on
    /// the bytes from here.
    pub fn serde<T: serde::de::DeserializeOwned>(&mut self) -> ReadResult<T> {
        let rest = &self.bytes[self.pos..];
        let (value, left) = postcard::take_from_bytes(rest)
            .map_err(|_| ReadError("postcard could not read a value"))?;
        self.pos += rest.len() - left.len();
        Ok(value)
    }
}

/// A type read from a payload.
pub trait Decode: Sized {
    /// Reads one value.
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self>;
}

impl Decode for u8 {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        r.byte()
    }
}

impl Decode for u32 {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        r.u32()
    }
}

impl Decode for u64 {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        r.u64()
    }
}

impl Decode for bool {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        r.bool()
    }
}

impl Decode for f32 {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        r.f32()
    }
}

impl Decode for String {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        r.str().map(str::to_string)
    }
}

impl<T: Decode> Decode for Option<T> {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        r.option(T::decode)
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        r.seq(T::decode)
    }
}

impl<A: Decode, B: Decode> Decode for (A, B) {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        Ok((A::decode(r)?, B::decode(r)?))
    }
}

/// `[f32; N]` (field weights, average lengths): N values, no length.
impl<const N: usize> Decode for [f32; N] {
    fn decode(r: &mut Reader<'_>) -> ReadResult<Self> {
        let mut out = [0f32; N];
        for v in &mut out {
            *v = r.f32()?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::kind::FileKind;
    use proptest::prelude::*;

    fn both<T>(value: &T) -> (T, T)
    where
        T: Decode + serde::Serialize + serde::de::DeserializeOwned,
    {
        let bytes = postcard::to_allocvec(value).unwrap();
        let ours = T::decode(&mut Reader::new(&bytes)).unwrap();
        (ours, postcard::from_bytes(&bytes).unwrap())
    }

    proptest! {
        /// Every primitive postcard writes reads back as postcard reads it.
        #[test]
        fn primitives_read_as_postcard_reads_them(
            a in any::<u32>(), b in any::<u64>(), c in any::<u8>(), d in any::<bool>(),
            e in any::<f32>().prop_filter("not NaN", |f| !f.is_nan()), s in ".{0,20}",
            o in proptest::option::of(any::<u32>()), v in proptest::collection::vec(any::<u64>(), 0..20),
            w in proptest::collection::vec((any::<u64>(), ".{0,5}"), 0..5),
            nested in proptest::option::of(proptest::option::of(".{0,5}")),
        ) {
            let value = ((a, b), ((c, d), (e, (s, (o, (v, (w, nested)))))));
            let (ours, theirs) = both(&value);
            prop_assert_eq!(ours, theirs);
        }

        /// A damaged or cut payload is an error, never a panic or a huge allocation.
        #[test]
        fn damage_is_an_error(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = <Vec<(String, Vec<Option<u64>>)>>::decode(&mut Reader::new(&bytes));
        }
    }

    #[test]
    fn file_kinds_read_as_serde_numbers_them() {
        for kind in FileKind::ALL {
            let (ours, theirs) = both(&kind);
            assert_eq!((ours, theirs), (kind, kind));
        }
    }

    #[test]
    fn out_of_range_numbers_are_refused() {
        // 2^32 as a varint, read as a u32.
        let bytes = postcard::to_allocvec(&(1u64 << 32)).unwrap();
        assert!(u32::decode(&mut Reader::new(&bytes)).is_err());
        assert!(postcard::from_bytes::<u32>(&bytes).is_err());
        // A length larger than what is left.
        assert!(String::decode(&mut Reader::new(&[200, 1, b'a'])).is_err());
    }
}

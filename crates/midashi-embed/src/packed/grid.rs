//! How a block of a weight is rounded when it is written (`q4`, `q6`, and `gptq`'s choice of
//! levels): which of an entry's levels it uses and how finely its scale is kept. Writer-only:
//! readers expand any level times any f16 scale.

use half::f16;

/// How a block is rounded: which of an entry's levels it uses, and how finely its scale is
/// kept. The stored formats do not change with it (a reader expands any level times any f16
/// scale); what changes is how much brotli can take off: levels left unused and scales with
/// fewer significant bits are what a visitor downloads fewer bytes of.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Grid {
    /// The stored value that stands for zero (8 in `q4`, 32 in `q6`).
    pub zero: f32,
    /// Levels used each side: `−below ..= below − 1` (at most `zero`).
    pub below: f32,
    /// How much further in than `below` the scale search puts a block's extreme (see
    /// `runs::quantise`).
    pub spread: f32,
    /// Significant bits of the f16 scale's mantissa kept (10: all of them).
    pub scale_bits: u32,
}

impl Grid {
    /// `scale` with only [`Grid::scale_bits`] of its mantissa, rounded to nearest.
    pub(crate) fn scale(&self, scale: f16) -> f16 {
        let drop = 10u32.saturating_sub(self.scale_bits);
        if drop == 0 {
            return scale;
        }
        let bits = scale.to_bits();
        let mask = (1u16 << drop) - 1;
        // Rounding the magnitude bits can carry into the exponent: the next power of two.
        f16::from_bits((((bits & 0x7fff) + (1 << (drop - 1))) & !mask) | (bits & 0x8000))
    }

    /// `v / s` rounded to a level of this grid, as stored (`level + zero`), in f32.
    pub(crate) fn level32(&self, v: f32, s: f32) -> u8 {
        ((v / s).round().clamp(-self.below, self.below - 1.0) + self.zero) as u8
    }

    /// `v / s` rounded to a level of this grid, as stored (`level + zero`), in f64 (GPTQ's
    /// running weights); level zero when the scale is.
    pub(crate) fn level(&self, v: f64, s: f64) -> u8 {
        let below = f64::from(self.below);
        let q = if s == 0.0 {
            0.0
        } else {
            (v / s).round().clamp(-below, below - 1.0)
        };
        (q + f64::from(self.zero)) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coarse_scale_keeps_its_sign_and_the_nearest_of_its_steps() {
        let grid = Grid {
            zero: 8.0,
            below: 8.0,
            spread: 2.0,
            scale_bits: 4,
        };
        for v in [0.013f32, -0.013, 1.0, -3.7, 0.000_2, 1.97] {
            let s = grid.scale(f16::from_f32(v)).to_f32();
            assert_eq!(s.signum(), v.signum());
            // 4 mantissa bits: steps of 1/16 of the power of two below, so within 1/32.
            assert!(((s - v) / v).abs() <= 1.0 / 32.0 + 1e-3, "{v} -> {s}");
            assert_eq!(f16::from_f32(s).to_bits() & 0x3f, 0, "{v} -> {s}");
        }
        // 1.97 rounds up into the next power of two.
        assert_eq!(grid.scale(f16::from_f32(1.99)).to_f32(), 2.0);
        let all = Grid {
            scale_bits: 10,
            ..grid
        };
        assert_eq!(all.scale(f16::from_f32(0.123)), f16::from_f32(0.123));
    }
}

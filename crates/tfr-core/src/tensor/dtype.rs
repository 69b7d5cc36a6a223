//! TensorFlow's `DataType` enum as the tensor view needs it: the name users know (`float32`), the
//! width of one element in `tensor_content`, and which typed `*_val` field holds the values when
//! there is no `tensor_content`.
//!
//! Numbers and names follow `tensorflow/core/framework/types.proto` and `tf.dtypes` (`DT_HALF` is
//! `float16`, `DT_FLOAT` is `float32`).

/// The element types a tensor can hold, by `DataType` number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DType {
    Float32,
    Float64,
    Int32,
    Uint8,
    Int16,
    Int8,
    String,
    Complex64,
    Int64,
    Bool,
    Qint8,
    Quint8,
    Qint32,
    Bfloat16,
    Qint16,
    Quint16,
    Uint16,
    Complex128,
    Float16,
    Resource,
    Variant,
    Uint32,
    Uint64,
    Float8E5m2,
    Float8E4m3fn,
    Float8E4m3fnuz,
    Float8E4m3b11fnuz,
    Float8E5m2fnuz,
    Int4,
    Uint4,
    Int2,
    Uint2,
    Float4E2m1fn,
}

/// The typed field of `TensorProto` that holds a dtype's values when `tensor_content` is empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValField {
    Half,
    Float,
    Double,
    Int,
    String,
    Scomplex,
    Int64,
    Bool,
    Dcomplex,
    Uint32,
    Uint64,
    Float8,
    /// Resource handles and variants are messages, not values this view reads.
    None,
}

impl ValField {
    /// The field's name in `TensorProto`.
    pub fn name(self) -> &'static str {
        match self {
            ValField::Half => "half_val",
            ValField::Float => "float_val",
            ValField::Double => "double_val",
            ValField::Int => "int_val",
            ValField::String => "string_val",
            ValField::Scomplex => "scomplex_val",
            ValField::Int64 => "int64_val",
            ValField::Bool => "bool_val",
            ValField::Dcomplex => "dcomplex_val",
            ValField::Uint32 => "uint32_val",
            ValField::Uint64 => "uint64_val",
            ValField::Float8 => "float8_val",
            ValField::None => "",
        }
    }
}

/// Every dtype with its `DataType` number and name, in one table so the three cannot drift apart.
const TABLE: [(DType, i32, &str); 33] = [
    (DType::Float32, 1, "float32"),
    (DType::Float64, 2, "float64"),
    (DType::Int32, 3, "int32"),
    (DType::Uint8, 4, "uint8"),
    (DType::Int16, 5, "int16"),
    (DType::Int8, 6, "int8"),
    (DType::String, 7, "string"),
    (DType::Complex64, 8, "complex64"),
    (DType::Int64, 9, "int64"),
    (DType::Bool, 10, "bool"),
    (DType::Qint8, 11, "qint8"),
    (DType::Quint8, 12, "quint8"),
    (DType::Qint32, 13, "qint32"),
    (DType::Bfloat16, 14, "bfloat16"),
    (DType::Qint16, 15, "qint16"),
    (DType::Quint16, 16, "quint16"),
    (DType::Uint16, 17, "uint16"),
    (DType::Complex128, 18, "complex128"),
    (DType::Float16, 19, "float16"),
    (DType::Resource, 20, "resource"),
    (DType::Variant, 21, "variant"),
    (DType::Uint32, 22, "uint32"),
    (DType::Uint64, 23, "uint64"),
    (DType::Float8E5m2, 24, "float8_e5m2"),
    (DType::Float8E4m3fn, 25, "float8_e4m3fn"),
    (DType::Float8E4m3fnuz, 26, "float8_e4m3fnuz"),
    (DType::Float8E4m3b11fnuz, 27, "float8_e4m3b11fnuz"),
    (DType::Float8E5m2fnuz, 28, "float8_e5m2fnuz"),
    (DType::Int4, 29, "int4"),
    (DType::Uint4, 30, "uint4"),
    (DType::Int2, 31, "int2"),
    (DType::Uint2, 32, "uint2"),
    (DType::Float4E2m1fn, 33, "float4_e2m1fn"),
];

/// How one element is laid out in `tensor_content` (little-endian, as TensorFlow copies its
/// buffers on the machines it runs on).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    F16,
    Bf16,
    F32,
    F64,
    /// A signed integer of this many bytes.
    Signed(usize),
    /// An unsigned integer of this many bytes.
    Unsigned(usize),
    Bool,
    /// Two floats of this many bytes each (real, imaginary).
    Complex(usize),
    /// A small float stored in one byte, decoded as its format says.
    Float8(Float8),
    /// A sub-byte integer TensorFlow keeps in one byte each: signed or not.
    Small {
        signed: bool,
        bits: u32,
    },
    /// No fixed-width content (strings, resources, variants).
    None,
}

/// The one-byte float formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Float8 {
    /// 5 exponent bits, 2 mantissa bits, IEEE-style infinities and NaNs.
    E5m2,
    /// 4 exponent bits, 3 mantissa bits, no infinities, NaN is all ones.
    E4m3fn,
}

impl DType {
    /// The dtype with `DataType` number `number`, also for reference types (`DT_FLOAT_REF` = 101).
    pub fn from_number(number: i32) -> Option<DType> {
        let base = if number > 100 { number - 100 } else { number };
        TABLE
            .iter()
            .find(|(_, n, _)| *n == base)
            .map(|(d, _, _)| *d)
    }

    /// The dtype `tf.dtypes` calls `name` (`uint8`, `float32`).
    pub fn from_name(name: &str) -> Option<DType> {
        TABLE
            .iter()
            .find(|(_, _, n)| *n == name)
            .map(|(d, _, _)| *d)
    }

    /// The name `tf.dtypes` gives it (`float32`).
    pub fn name(self) -> &'static str {
        TABLE
            .iter()
            .find(|(d, _, _)| *d == self)
            .map_or("?", |(_, _, name)| name)
    }

    /// How one element lies in `tensor_content`.
    pub fn layout(self) -> Layout {
        use DType::*;
        match self {
            Float32 => Layout::F32,
            Float64 => Layout::F64,
            Float16 => Layout::F16,
            Bfloat16 => Layout::Bf16,
            Int8 | Qint8 => Layout::Signed(1),
            Int16 | Qint16 => Layout::Signed(2),
            Int32 | Qint32 => Layout::Signed(4),
            Int64 => Layout::Signed(8),
            Uint8 | Quint8 => Layout::Unsigned(1),
            Uint16 | Quint16 => Layout::Unsigned(2),
            Uint32 => Layout::Unsigned(4),
            Uint64 => Layout::Unsigned(8),
            Bool => Layout::Bool,
            Complex64 => Layout::Complex(4),
            Complex128 => Layout::Complex(8),
            Float8E5m2 => Layout::Float8(Float8::E5m2),
            Float8E4m3fn => Layout::Float8(Float8::E4m3fn),
            Int4 => Layout::Small {
                signed: true,
                bits: 4,
            },
            Uint4 => Layout::Small {
                signed: false,
                bits: 4,
            },
            Int2 => Layout::Small {
                signed: true,
                bits: 2,
            },
            Uint2 => Layout::Small {
                signed: false,
                bits: 2,
            },
            // Formats whose encodings this view does not decode: their bytes are shown as bytes.
            Float8E4m3fnuz | Float8E4m3b11fnuz | Float8E5m2fnuz | Float4E2m1fn => {
                Layout::Unsigned(1)
            }
            String | Resource | Variant => Layout::None,
        }
    }

    /// Bytes per element in `tensor_content`, `None` for dtypes without fixed-width content.
    pub fn width(self) -> Option<usize> {
        match self.layout() {
            Layout::F16 | Layout::Bf16 => Some(2),
            Layout::F32 => Some(4),
            Layout::F64 => Some(8),
            Layout::Signed(n) | Layout::Unsigned(n) => Some(n),
            Layout::Complex(n) => Some(2 * n),
            Layout::Bool | Layout::Float8(_) | Layout::Small { .. } => Some(1),
            Layout::None => None,
        }
    }

    /// The typed field that holds this dtype's values (TensorFlow's `ProtoHelper`).
    pub fn val_field(self) -> ValField {
        use DType::*;
        match self {
            Float32 => ValField::Float,
            Float64 => ValField::Double,
            Int32 | Int16 | Int8 | Uint8 | Uint16 | Qint8 | Quint8 | Qint16 | Quint16 | Qint32
            | Int4 | Uint4 | Int2 | Uint2 => ValField::Int,
            Int64 => ValField::Int64,
            Uint32 => ValField::Uint32,
            Uint64 => ValField::Uint64,
            Bool => ValField::Bool,
            String => ValField::String,
            Complex64 => ValField::Scomplex,
            Complex128 => ValField::Dcomplex,
            Float16 | Bfloat16 => ValField::Half,
            Float8E5m2 | Float8E4m3fn | Float8E4m3fnuz | Float8E4m3b11fnuz | Float8E5m2fnuz
            | Float4E2m1fn => ValField::Float8,
            Resource | Variant => ValField::None,
        }
    }

    /// Whether values are numbers with an order (for min, max and mean).
    pub fn is_real(self) -> bool {
        !matches!(
            self.layout(),
            Layout::Complex(_) | Layout::None | Layout::Bool
        )
    }
}

/// An IEEE half-precision float, widened.
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = i32::from((bits >> 10) & 0x1f);
    let mantissa = f32::from(bits & 0x3ff);
    match exponent {
        0 => sign * mantissa * 2f32.powi(-24),
        31 if mantissa == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        _ => sign * (1.0 + mantissa / 1024.0) * 2f32.powi(exponent - 15),
    }
}

/// A bfloat16: the top half of a float32.
pub fn bf16_to_f32(bits: u16) -> f32 {
    f32::from_bits(u32::from(bits) << 16)
}

/// A one-byte float, widened.
pub fn float8_to_f32(byte: u8, format: Float8) -> f32 {
    let sign = if byte & 0x80 != 0 { -1.0 } else { 1.0 };
    let (exponent_bits, mantissa_bits, bias) = match format {
        Float8::E5m2 => (5, 2, 15),
        Float8::E4m3fn => (4, 3, 7),
    };
    let exponent = i32::from((byte >> mantissa_bits) & ((1 << exponent_bits) - 1));
    let mantissa = f32::from(byte & ((1 << mantissa_bits) - 1));
    let scale = f32::from(1u8 << mantissa_bits);
    let max_exponent = (1 << exponent_bits) - 1;
    match format {
        Float8::E5m2 if exponent == max_exponent => {
            if mantissa == 0.0 {
                sign * f32::INFINITY
            } else {
                f32::NAN
            }
        }
        Float8::E4m3fn if byte & 0x7f == 0x7f => f32::NAN,
        _ if exponent == 0 => sign * (mantissa / scale) * 2f32.powi(1 - bias),
        _ => sign * (1.0 + mantissa / scale) * 2f32.powi(exponent - bias),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_names_follow_types_proto() {
        assert_eq!(DType::from_number(1), Some(DType::Float32));
        assert_eq!(DType::from_number(19).map(DType::name), Some("float16"));
        assert_eq!(DType::from_number(104), Some(DType::Uint8));
        assert_eq!(DType::from_number(0), None);
        assert_eq!(DType::from_number(99), None);
        for (dtype, number, name) in TABLE {
            assert_eq!(DType::from_number(number), Some(dtype));
            assert_eq!(dtype.name(), name);
        }
    }

    #[test]
    fn widths_and_value_fields() {
        assert_eq!(DType::Complex128.width(), Some(16));
        assert_eq!(DType::Bfloat16.width(), Some(2));
        assert_eq!(DType::String.width(), None);
        assert_eq!(DType::Uint8.val_field(), ValField::Int);
        assert_eq!(DType::Float16.val_field().name(), "half_val");
    }

    #[test]
    fn small_floats_widen_exactly() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert!(f16_to_f32(0x7e00).is_nan());
        assert_eq!(bf16_to_f32(0x3fc0), 1.5);
        assert_eq!(float8_to_f32(0x3c, Float8::E5m2), 1.0);
        assert_eq!(float8_to_f32(0x7c, Float8::E5m2), f32::INFINITY);
        assert_eq!(float8_to_f32(0x38, Float8::E4m3fn), 1.0);
        assert_eq!(float8_to_f32(0x7e, Float8::E4m3fn), 448.0);
        assert!(float8_to_f32(0xff, Float8::E4m3fn).is_nan());
    }
}

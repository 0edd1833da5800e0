// Keyword-only worker: the engine core alone (fits the free plan's 3 MB script limit).
import coreWasm from "../../www/dist/sift_wasm_bg.wasm";
import { makeApp } from "./app.js";

export default makeApp({ coreWasm });

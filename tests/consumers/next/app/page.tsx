"use client";
// A client component: the package in the browser, through Next's bundler.
import * as core from "lathe-core";
import { useEffect, useState } from "react";
import { scenario } from "../../scenario.js";

export default function Page() {
  const [result, setResult] = useState("");
  useEffect(() => {
    setResult(scenario(core));
  }, []);
  return <main data-result={result}>{result}</main>;
}

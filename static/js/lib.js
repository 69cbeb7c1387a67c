// lib.js: the one place the UI imports its framework from: Preact and
// its hooks, with htm's tagged templates as the markup (no build step,
// no JSX).  The files come from npm (static/package.json); the build
// copies them into static/vendor/.
import { h, render, Fragment } from "../vendor/preact.js";
import {
  useState, useEffect, useRef, useMemo, useCallback,
} from "../vendor/hooks.js";
import htm from "../vendor/htm.js";

export const html = htm.bind(h);
export {
  h, render, Fragment, useState, useEffect, useRef, useMemo, useCallback,
};

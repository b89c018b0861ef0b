package langhost

import (
	"fmt"
	"os"
	"path/filepath"
)

// nodePlainErrors is preloaded (node --require) into every Node.js
// program. The SDK reports an uncaught error with util.inspect(err,
// {colors: true}), and Node.js releases from 20.19.6 on loop in that call
// until the string they build outgrows the largest string V8 allows
// (nodejs/node#64011) whenever a stack frame lies in a file directly
// under a scoped package's folder, as the SDK's own frames do once their
// source maps are applied (node_modules/@pulumi/resource.ts). The program
// then spins for 40 seconds or more before its failure is reported. The
// preload makes util.inspect format Error values without colors, which
// takes a path without the loop; the text is the same, less the color
// codes.
const nodePlainErrors = `"use strict";
const util = require("util");
const inspect = util.inspect;
function inspectErrorsWithoutColors(value, options, ...rest) {
    if (value instanceof Error && options !== null && typeof options === "object" && options.colors) {
        options = { ...options, colors: false };
    }
    return inspect.call(this, value, options, ...rest);
}
for (const key of Reflect.ownKeys(inspect)) {
    if (key !== "length" && key !== "name" && key !== "prototype") {
        Object.defineProperty(inspectErrorsWithoutColors, key, Object.getOwnPropertyDescriptor(inspect, key));
    }
}
util.inspect = inspectErrorsWithoutColors;
`

// writeNodePreload writes nodePlainErrors to a file of a new temporary
// folder and returns its path, and a function that removes the folder.
func writeNodePreload() (path string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "langhost-node-")
	if err != nil {
		return "", nil, fmt.Errorf("preparing the Node.js program: %w", err)
	}
	remove = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, "plain-errors.js")
	if err := os.WriteFile(path, []byte(nodePlainErrors), 0o600); err != nil {
		remove()
		return "", nil, fmt.Errorf("preparing the Node.js program: %w", err)
	}
	return path, remove, nil
}

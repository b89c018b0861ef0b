// A Pulumi Node.js SDK program that langhost's tests deploy through
// groundwork's engine, with the testfs provider plugin.
"use strict";
const pulumi = require("@pulumi/pulumi");

class File extends pulumi.CustomResource {
    constructor(name, args, opts) {
        super("testfs:index:File", name, { ...args, size: undefined }, opts);
    }
}

class Pair extends pulumi.ComponentResource {
    constructor(name, opts) {
        super("nodeprog:index:Pair", name, {}, opts);
        this.left = new File(`${name}-left`, { name: `${name}-left.txt`, content: "left" }, { parent: this });
        this.right = new File(`${name}-right`, { name: `${name}-right.txt`, content: this.left.content }, { parent: this });
        this.registerOutputs({ files: 2 });
    }
}

const config = new pulumi.Config();
const a = new File("a", { name: "node-a.txt", content: config.require("content") });
new Pair("pair");
const hidden = new File("hidden", { name: "node-hidden.txt", content: pulumi.secret(config.requireSecret("token")) });

console.log("nodeprog: running");
exports.size = a.size;
exports.hidden = hidden.content;
exports.upper = pulumi.runtime.invoke("testfs:index:upper", { text: "node" }).then(r => r.result);

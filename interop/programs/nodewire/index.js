// A Pulumi Node.js program of the interop suite (see wire_test.go): a
// dynamic provider whose settings come from the stack's configuration, a
// read of the dynamic resource it created, a dynamic resource whose ID
// comes from the provider process's environment, and a remote component of
// the comp plugin with a method call.
"use strict";
const pulumi = require("@pulumi/pulumi");

const config = new pulumi.Config();
const dir = config.require("dir");

// files keeps files in a folder; what it writes starts with the stack's
// "prefix", which reaches it only if the engine configures the dynamic
// provider with the stack's configuration.
const files = {
    async configure(req) {
        this.prefix = req.config.require("prefix");
    },
    async create(inputs) {
        const fs = require("fs");
        const path = require("path");
        const written = this.prefix + inputs.content;
        fs.writeFileSync(path.join(inputs.dir, inputs.name), written);
        return { id: inputs.name, outs: { ...inputs, written } };
    },
    async read(id, props) {
        const fs = require("fs");
        const path = require("path");
        const written = fs.readFileSync(path.join(props.dir, id), "utf8");
        return { id, props: { ...props, name: id, written } };
    },
    async delete(id, props) {
        const fs = require("fs");
        const path = require("path");
        fs.rmSync(path.join(props.dir, id), { force: true });
    },
};

class File extends pulumi.dynamic.Resource {
    constructor(name, args, opts) {
        super(files, name, { written: undefined, ...args }, opts);
    }
}

class Greeter extends pulumi.ComponentResource {
    constructor(name, args, opts) {
        super("comp:index:Greeter", name, { name: args.name, message: undefined, tokenIsSecret: undefined }, opts, true);
    }
    shout(suffix) {
        return pulumi.runtime.call("comp:index:Greeter/shout", { __self__: this, suffix }, this);
    }
}

const made = new File("made", { dir, name: "made.txt", content: "hello" });
// A read of the file just made: the dynamic provider finds itself in the
// read's inputs.
const read = new File("read", { dir, name: "made.txt" }, { id: made.id });

// envID makes a resource whose ID is the key "id" of the dynamic
// provider's own configuration ("pulumi-nodejs:id"), which it reads from
// PULUMI_CONFIG in its environment, as Pulumi's TestPulumiConfig does.
const envID = {
    async create() {
        return { id: JSON.parse(process.env.PULUMI_CONFIG).id, outs: {} };
    },
};

class EnvID extends pulumi.dynamic.Resource {
    constructor(name, opts) {
        super(envID, name, {}, opts);
    }
}

const fromEnv = new EnvID("from-env");

const greeter = new Greeter("greeter", { name: "node" });

exports.written = made.written;
exports.readBack = read.written;
exports.rid = fromEnv.id;
exports.message = greeter.message;
exports.tokenIsSecret = greeter.tokenIsSecret;
exports.shout = greeter.shout("!").apply(r => r.shout);

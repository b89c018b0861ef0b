// A Pulumi Node.js SDK program that the interop suite deploys through
// groundwork's engine. The config key "interop:scenario" selects what it
// does, as in the Go program beside it (../goprog); resources are of the
// suite's in-process package "itest".
"use strict";
const fs = require("fs");
const pulumi = require("@pulumi/pulumi");

class Thing extends pulumi.CustomResource {
    constructor(name, value, opts) {
        super("itest:index:Thing", name, { value, tagged: undefined }, opts);
    }
}

class Group extends pulumi.ComponentResource {
    constructor(type, name, opts) {
        super(type, name, {}, opts);
    }
}

// Component is the comp plugin's remote component of Pulumi's
// TestConstruct: it echoes "echo" and answers its child's ID.
class Component extends pulumi.ComponentResource {
    constructor(name, echo, opts) {
        super("comp:index:Component", name, { echo, childId: undefined }, opts, true);
    }
}

const config = new pulumi.Config("interop");

const scenarios = {
    // Gets a thing again by its URN (the urn resource option: the
    // engine's getResource).
    urn() {
        const a = new Thing("a", "x");
        const again = a.urn.apply((urn) => new pulumi.CustomResource("itest:index:Thing", "a-again", { value: undefined }, { urn }));
        return {
            againValue: again.apply((r) => r.value),
            againID: again.apply((r) => r.id),
            againURN: again.apply((r) => r.urn),
        };
    },

    producer() {
        return { plain: "p", token: pulumi.secret("s3cr3t-t0k3n") };
    },

    // Reads the producer stack's outputs.
    consumer() {
        const ref = new pulumi.StackReference("organization/interop/producer");
        return {
            plain: ref.getOutput("plain"),
            token: ref.getOutput("token"),
            tokenIsSecret: ref.getOutputDetails("token").then((d) => d.secretValue !== undefined && d.value === undefined),
        };
    },

    // Tags every thing (a stack transform), renames the value of the
    // children of one component (a transform of the component), and
    // rewrites the arguments of every invoke.
    transforms() {
        pulumi.runtime.registerResourceTransform((args) => {
            if (args.type !== "itest:index:Thing") {
                return undefined;
            }
            return { props: { ...args.props, tagged: true }, opts: args.opts };
        });
        pulumi.runtime.registerInvokeTransform((args) => ({ args: { ...args.args, message: "transformed" }, opts: args.opts }));
        const group = new Group("interop:index:Group", "group", {
            transforms: [(args) => {
                if (args.type !== "itest:index:Thing") {
                    return undefined;
                }
                return { props: { ...args.props, value: `${args.name}-from-group` }, opts: args.opts };
            }],
        });
        new Thing("child", "orig", { parent: group });
        new Thing("plain", "orig");
        group.registerOutputs({});
        return { echoed: pulumi.runtime.invoke("itest:index:echo", { message: "orig" }).then((r) => r.message) };
    },

    // Binds a hook of each kind to a thing (when "declare" is set), each
    // appending a line to the file "hookLog" names; a thing with the
    // value "veto" is refused by its before-create hook.
    hooks() {
        const logPath = config.require("hookLog");
        const show = (m) => (m && typeof m.value === "string" ? m.value : "-");
        const binding = {};
        for (const kind of ["beforeCreate", "afterCreate", "beforeUpdate", "afterUpdate", "beforeDelete", "afterDelete"]) {
            binding[kind] = [new pulumi.ResourceHook(kind, (a) => {
                if (kind === "beforeCreate" && show(a.newInputs) === "veto") {
                    throw new Error("vetoed by the program");
                }
                fs.appendFileSync(logPath, `${kind} ${a.name} new=${show(a.newInputs)} old=${show(a.oldInputs)} id=${a.id !== ""}\n`);
            })];
        }
        if (config.getBoolean("declare")) {
            new Thing("hooked", config.require("value"), { hooks: binding });
        }
        return {};
    },

    // Version 1 calls a component "app", of type Group; version 2 renames
    // it "web" and retypes it Team, with aliases saying so, and its
    // children take the new name as the SDKs name children.
    aliases() {
        const v2 = config.requireNumber("version") === 2;
        const name = v2 ? "web" : "app";
        const comp = new Group(v2 ? "interop:index:Team" : "interop:index:Group", name,
            v2 ? { aliases: [{ name: "app", type: "interop:index:Group" }] } : {});
        new Thing(`${name}-db`, "db", { parent: comp });
        const sub = new Group("interop:index:Sub", `${name}-sub`, { parent: comp });
        new Thing("leaf", "leaf", { parent: sub });
        return {};
    },

    read() {
        const t = new Thing("ext", undefined, { id: "ext-1" });
        return { read: t.value };
    },

    // Exports a value and, with fail set, one that depends on a thing its
    // provider refuses to create.
    failure() {
        if (!config.requireBoolean("fail")) {
            return { a: "one" };
        }
        const bad = new Thing("bad", "fail");
        return { a: "two", b: bad.value };
    },

    // Pulumi's TestConstruct program: b's input is a's output echo, c's
    // is a's childId, an output of a's child.
    construct() {
        const a = new Component("a", 42);
        new Component("b", a.echo);
        new Component("c", a.childId);
        return {};
    },

    // Sets providers on remote components through transforms, as Pulumi's
    // transforms/simple does: "res7" is given provider1 and its own
    // transform swaps it for provider2; a stack transform gives "res10"
    // provider2.
    componentProviders() {
        const provider1 = new pulumi.ProviderResource("comp", "provider1");
        const provider2 = new pulumi.ProviderResource("comp", "provider2");
        new Component("res7", 10, {
            provider: provider1,
            transforms: [({ type, props, opts }) => {
                if (type !== "comp:index:Component") {
                    return undefined;
                }
                return { props, opts: pulumi.mergeOptions(opts, { provider: provider2 }) };
            }],
        });
        pulumi.runtime.registerResourceTransform(({ type, props, opts }) => {
            if (type !== "comp:index:Component") {
                return undefined;
            }
            return { props, opts: pulumi.mergeOptions(opts, { provider: provider2 }) };
        });
        new Component("res10", 10);
        return {};
    },
};

const scenario = scenarios[config.require("scenario")];
if (!scenario) {
    throw new Error(`unknown scenario ${config.require("scenario")}`);
}
module.exports = scenario();

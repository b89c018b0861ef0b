// A Pulumi Node.js program written with @pulumi/command, the copy of
// programs/gocommand: the interop suite deploys it through gw with no
// pulumi-resource-command plugin installed, and gw's built-in command
// provider serves its types.
"use strict";
const pulumi = require("@pulumi/pulumi");
const { local } = require("@pulumi/command");

const cfg = new pulumi.Config();
const dir = cfg.require("dir");
const msg = cfg.require("msg");
const gen = cfg.require("gen");

const hello = new local.Command("hello", {
    create: `echo "create $MSG" >> log.txt; echo "hello $MSG"`,
    update: `echo "update $MSG saw $PULUMI_COMMAND_STDOUT" >> log.txt; echo "hello again $MSG"`,
    delete: `echo "delete hello saw $PULUMI_COMMAND_STDOUT" >> log.txt`,
    dir: dir,
    environment: { MSG: msg },
});

const genCmd = new local.Command("gen", {
    create: `echo "create gen $GEN" >> log.txt; cat`,
    delete: `echo "delete gen $GEN" >> log.txt`,
    stdin: "input-" + gen,
    interpreter: ["/bin/sh", "-c"],
    dir: dir,
    environment: { GEN: gen },
    triggers: [gen],
});

const files = new local.Command("files", {
    create: `mkdir -p out && echo a > out/a.txt && echo s > out/secret.txt`,
    delete: `rm -r out`,
    dir: dir,
    assetPaths: ["out/*.txt", "!**secret*"],
    archivePaths: ["out/**"],
    logging: local.Logging.None,
});

const token = new local.Command("token", {
    create: `echo "token=$TOKEN"`,
    environment: { TOKEN: pulumi.secret("tok-s3cr3t") },
    addPreviousOutputInEnv: false,
});

exports.helloOut = hello.stdout;
exports.genOut = genCmd.stdout;
exports.runOut = local.runOutput({
    command: `echo "run $MSG"`,
    environment: { MSG: msg },
    dir: dir,
}).stdout;
exports.assetNames = files.assets.apply(a => Object.keys(a || {}).sort());
exports.tokenOut = token.stdout;

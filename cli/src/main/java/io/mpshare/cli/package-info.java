/** picocli entry points: one command class per subcommand, each wiring its component by hand. */
package io.mpshare.cli;

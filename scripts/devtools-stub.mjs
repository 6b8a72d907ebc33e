// Stands in for react-devtools-core, which Ink imports only when DEV=true.
export default { initialize() {}, connectToDevTools() {} };

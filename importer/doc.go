// Package importer translates other tools' chatbot test sets (Botium
// convos and utterances, Rasa end-to-end tests and test stories) into
// nlutest suite files. It never touches the network.
package importer

"""The kinds of case: ``kind.py`` says what a kind is (the extension point), each other module is one
kind (its case model and how it calls the adapter), ``registry.py`` lists them and builds the case
model of a case file from them."""

/* Found only through -I; lets preprocessor tests prove the -I path is used. */
#define CONFIG_FROM_INCLUDE_DIR 1

# FXT_SANITIZE=address,undefined or thread: applied to every target of the tree,
# so the tests run the same code the sanitizers watch.
if(FXT_SANITIZE)
	add_compile_options(-fsanitize=${FXT_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
	add_link_options(-fsanitize=${FXT_SANITIZE})
endif()

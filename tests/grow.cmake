# common/grow.h, the array growth of client/, symbolizer/ and the tools: doubling, kept contents,
# overflow refused.
fxt_unit_test(test-fxt-grow unit/test-fxt-grow.c)

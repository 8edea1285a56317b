# Bubble sort of the 8 signed words at data address 0.
        addi $s0, $zero, 8        # n
outer:
        addi $s1, $zero, 0        # swapped = 0
        addi $t0, $zero, 0        # byte offset of a[i]
        addi $t3, $s0, -1         # comparisons per pass
        addi $t4, $zero, 0        # i
inner:
        beq $t4, $t3, check
        lw $t1, 0($t0)
        lw $t2, 4($t0)
        slt $t5, $t2, $t1         # a[i+1] < a[i] ?
        beq $t5, $zero, noswap
        sw $t2, 0($t0)
        sw $t1, 4($t0)
        addi $s1, $zero, 1
noswap:
        addi $t0, $t0, 4
        addi $t4, $t4, 1
        j inner
check:
        bne $s1, $zero, outer
        syscall

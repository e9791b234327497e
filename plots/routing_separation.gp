# Theorem 3.1 in miniature: best piecewise-constant students of a constant-expert teacher.
# Usage: gnuplot -e "csv='results/routing_separation.csv'; png='results/routing_separation.png'" plots/routing_separation.gp
# CSV columns: m,k,d,family,m_student,k_student,student_regions,ratio,relative_error_mean,relative_error_std_error,floor_relative,
#              coverage,teacher_norm2,delta,max_norm2,min_separation,points,trials
if (!exists("csv")) csv = 'results/routing_separation.csv'
if (!exists("png")) png = 'results/routing_separation.png'

set encoding utf8
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
  set terminal pngcairo size 1100,700 enhanced font ",11"
} else {
  set terminal png size 1100,700
}
set output png
set datafile separator comma
set datafile columnheaders
stats csv using 1 name "M" nooutput
stats csv using 2 name "K" nooutput
stats csv using 3 name "D" nooutput
set title sprintf("Best L2 student with given regions vs a (%d, %d) constant-expert teacher, d = %d (Theorem 3.1 in miniature)", M_min, K_min, D_min)
set grid
set logscale x 10
set xrange [0.01:6]
set yrange [-0.02:1.0]
set xlabel "student configurations / teacher configurations,  C(m',k') / C(m,k)"
set ylabel "E||f - f'||^2 / E||f||^2"
set key top right box opaque
set arrow 1 from 1, graph 0 to 1, graph 1 nohead dt 3 lc rgb "gray40"
set label 1 "exact student:\n(C(m,k), 1) with the k-sums" at 1.08, 0.08 left
plot csv using (strcol(4) eq "gaussian" ? $8 : 1/0):9:10 with yerrorbars pt 5 ps 1.0 lc rgb "#ff7f0e" title "random Gaussian (m', k') routers", \
     csv using (strcol(4) eq "gaussian" ? $8 : 1/0):9:(sprintf("(%d,%d)", $5, $6)) with labels offset 0, 0.9 font ",8" tc rgb "#ff7f0e" notitle, \
     csv using (strcol(4) eq "ksum" ? $8 : 1/0):9:10 with yerrorlines pt 7 ps 1.0 lw 2 lc rgb "#1f77b4" title "k-sum students: p of the C(m,k) configuration sums", \
     csv using (strcol(4) eq "ksum" ? $8 : 1/0):11 with linespoints pt 6 lw 2 dt 2 lc rgb "#d62728" title "separation floor of the proof, k-sum students", \
     csv using (strcol(4) eq "gaussian" ? $8 : 1/0):11 with points pt 4 lc rgb "#d62728" title "separation floor, Gaussian students", \
     (x <= 1 ? 1 - x : 1/0) with lines dt 3 lw 1.5 lc rgb "gray30" title "naive count 1 - p/C (not a bound)"
